import Foundation
import LarderHTTP
import LarderStore
import NIOCore
import NIOFileSystem
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Answering from the cache

    /// Answers from a stored entry. Returns nil, having written nothing, when its body cannot be
    /// opened. Whether the entry may be used at all is the caller's decision.
    /// - Parameter cacheStatus: the `Cache-Status` to send; by default a hit with its `ttl`.
    func serveCached(
        _ entry: CachedEntry,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        detail: String?,
        now: Date,
        cacheStatus: CacheStatus? = nil
    ) async throws -> Outcome? {
        let freshness = self.freshness(of: entry)
        let age = freshness.currentAge(now: now)
        let cacheStatus = cacheStatus ?? CacheStatus.hit(ttl: Int(freshness.lifetime) - age, detail: detail)
        self.usage.recordUse(entry.key)
        var headers = Self.storedHeaders(entry, age: age)

        // The client's own conditional is answered here (RFC 9111 section 4.3.2).
        if entry.status == 200,
            ClientConditionals.notModified(request.headers, etag: entry.header("etag"), lastModified: entry.header("last-modified"), date: entry.header("date"))
        {
            var notModified = HTTPHeaders()
            for (name, value) in headers where ClientConditionals.notModifiedHeaderNames.contains(name.lowercased()) || name.lowercased() == "age" {
                notModified.add(name: name, value: value)
            }
            Self.addProxyHeaders(&notModified, cacheStatus: cacheStatus, close: !request.isKeepAlive)
            try await writer.whole(.notModified, notModified, body: nil)
            return Outcome(status: 304, cacheStatus: cacheStatus, reusable: request.isKeepAlive)
        }
        switch EncodingNegotiation.plan(contentEncoding: headers["content-encoding"], request: request.headers) {
        case .asIs:
            break
        case .unusable:
            return nil
        case .decode(let coding):
            return try await self.serveDecoded(entry, coding: coding, headers: headers, request: request, writer: writer, cacheStatus: cacheStatus)
        }
        if entry.status == 200 {
            headers.replaceOrAdd(name: "accept-ranges", value: "bytes")
        }
        var status = HTTPResponseStatus(statusCode: entry.status)

        if request.method == .HEAD || !status.mayHaveResponseBody {
            headers.add(name: "content-length", value: String(entry.bodySize))
            Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !request.isKeepAlive)
            try await writer.whole(status, headers, body: nil)
            return Outcome(status: entry.status, cacheStatus: cacheStatus, reusable: request.isKeepAlive)
        }
        // Range requests are answered from the full stored body (RFC 9110 section 14).
        var slice: Range<Int64> = 0..<entry.bodySize
        switch Self.rangeResolution(request, status: entry.status, length: entry.bodySize, etag: entry.header("etag"), lastModified: entry.header("last-modified")) {
        case .full:
            break
        case .unsatisfiable:
            try await self.writeUnsatisfiable(length: entry.bodySize, cacheStatus: cacheStatus, request: request, writer: writer)
            return Outcome(status: 416, cacheStatus: cacheStatus, reusable: request.isKeepAlive)
        case .partial(let range):
            slice = range
            status = .partialContent
            headers.add(name: "content-range", value: ByteRangeRequest.contentRange(range, length: entry.bodySize))
        }
        headers.add(name: "content-length", value: String(slice.count))
        Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !request.isKeepAlive)
        // A small body comes from memory (read once, kept by its content hash).
        if entry.bodySize <= self.smallBodies.maximumBodySize {
            guard let body = await self.smallBody(entry) else { return nil }
            try await writer.whole(status, headers, body: body.getSlice(at: body.readerIndex + Int(slice.lowerBound), length: slice.count))
            return Outcome(status: Int(status.code), cacheStatus: cacheStatus, reusable: request.isKeepAlive)
        }
        let handle: ReadFileHandle
        do {
            handle = try await FileSystem.shared.openFile(forReadingAt: FilePath(entry.bodyPath))
        } catch {
            self.logger.warning("cached body unreadable", metadata: ["path": "\(entry.bodyPath)", "error": "\(error)"])
            return nil
        }
        var sent: Int64 = 0
        do {
            try await writer.head(status, headers)
            for try await chunk in handle.readChunks(in: slice, chunkLength: .kibibytes(64)) {
                sent += Int64(chunk.readableBytes)
                try await writer.body(chunk)
            }
        } catch {
            try? await handle.close()
            throw error
        }
        try? await handle.close()
        guard sent == Int64(slice.count) else {
            // The file shrank under us: the client must not take a short body for a whole one.
            self.logger.error("cached body shorter than indexed", metadata: ["path": "\(entry.bodyPath)"])
            return Outcome(status: Int(status.code), cacheStatus: cacheStatus, reusable: false)
        }
        try await writer.end()
        return Outcome(status: Int(status.code), cacheStatus: cacheStatus, reusable: request.isKeepAlive)
    }

    /// A stored entry's headers as a cached answer carries them: its own, with `Age` and without
    /// framing (the caller adds what fits the answer).
    static func storedHeaders(_ entry: CachedEntry, age: Int) -> HTTPHeaders {
        var headers = HTTPHeaders(entry.headers.map { ($0.name, $0.value) })
        headers.remove(name: "content-length")
        headers.remove(name: "age")
        headers.remove(name: "content-range")
        headers.add(name: "age", value: String(age))
        return headers
    }

    /// A small stored body, from memory or read whole from its file; nil when the file is
    /// missing or not the size the index says.
    private func smallBody(_ entry: CachedEntry) async -> ByteBuffer? {
        if let body = self.smallBodies.body(hash: entry.bodyHash) {
            return body
        }
        do {
            let body = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(entry.bodyPath)) { handle in
                try await handle.readToEnd(maximumSizeAllowed: .bytes(self.smallBodies.maximumBodySize + 1))
            }
            guard body.readableBytes == entry.bodySize else {
                self.logger.error("cached body is not the indexed size", metadata: ["path": "\(entry.bodyPath)"])
                return nil
            }
            self.smallBodies.insert(body, hash: entry.bodyHash)
            return body
        } catch {
            self.logger.warning("cached body unreadable", metadata: ["path": "\(entry.bodyPath)", "error": "\(error)"])
            return nil
        }
    }

    /// Answers with a stored coded body decoded, for a client that does not accept its coding: the
    /// whole body (a range would address the coded bytes), of a length known only at the end.
    private func serveDecoded(
        _ entry: CachedEntry,
        coding: ContentCoding,
        headers: HTTPHeaders,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        cacheStatus: CacheStatus
    ) async throws -> Outcome? {
        var headers = headers
        EncodingNegotiation.decodedHeaders(&headers)
        let status = HTTPResponseStatus(statusCode: entry.status)
        let hasBody = request.method != .HEAD && status.mayHaveResponseBody
        var close = !request.isKeepAlive
        if hasBody {
            if request.version.major > 1 || (request.version.major == 1 && request.version.minor >= 1) {
                headers.add(name: "transfer-encoding", value: "chunked")
            } else {
                close = true  // HTTP/1.0: the body ends when the connection closes
            }
        }
        Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: close)
        guard hasBody else {
            try await writer.head(status, headers)
            try await writer.end()
            return Outcome(status: entry.status, cacheStatus: cacheStatus, reusable: !close)
        }
        let handle: ReadFileHandle
        do {
            handle = try await FileSystem.shared.openFile(forReadingAt: FilePath(entry.bodyPath))
        } catch {
            self.logger.warning("cached body unreadable", metadata: ["path": "\(entry.bodyPath)", "error": "\(error)"])
            return nil
        }
        defer { Task { try? await handle.close() } }
        try await writer.head(status, headers)
        do {
            for try await piece in handle.readChunks(in: 0..<entry.bodySize, chunkLength: .kibibytes(64)).decoded(coding) {
                try await writer.body(piece)
            }
        } catch let error as ContentDecodingError {
            // The stored body does not decode: the client must not take what it got for the whole.
            self.logger.error("cached body does not decode", metadata: ["key": "\(entry.key)", "error": "\(error)"])
            return Outcome(status: entry.status, cacheStatus: cacheStatus, reusable: false)
        }
        try await writer.end()
        return Outcome(status: entry.status, cacheStatus: cacheStatus, reusable: !close)
    }

    /// How to answer a request's `Range` (with its `If-Range`) from a full body of `length` bytes
    /// with these validators: `.full` when the request asks for no usable range.
    static func rangeResolution(
        _ request: HTTPRequestHead,
        status: Int,
        length: Int64,
        etag: String?,
        lastModified: String?
    ) -> ByteRangeRequest.Resolution {
        let values = request.headers["range"]
        guard request.method == .GET, status == 200, !values.isEmpty,
            let range = ByteRangeRequest(values.joined(separator: ",")),
            ByteRangeRequest.ifRangeAllowsRange(request.headers["if-range"].first, etag: etag, lastModified: lastModified)
        else {
            return .full
        }
        return range.resolve(length: length)
    }

    /// A 416 for a range that no byte of the body satisfies, with `Content-Range: bytes */length`.
    func writeUnsatisfiable(length: Int64, cacheStatus: CacheStatus, request: HTTPRequestHead, writer: ResponseWriter) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "content-range", value: ByteRangeRequest.unsatisfiedContentRange(length: length))
        headers.add(name: "content-length", value: "0")
        Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !request.isKeepAlive)
        try await writer.head(.rangeNotSatisfiable, headers)
        try await writer.end()
    }

}
