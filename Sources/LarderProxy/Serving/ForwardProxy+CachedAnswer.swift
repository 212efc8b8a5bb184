import Foundation
import LarderHTTP
import LarderStore
import NIOCore
import NIOFileSystem
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Answering from the cache

    /// Answers from a stored entry, as ``StoredAnswer`` plans it. Returns nil, having written
    /// nothing, when its body cannot be opened or its coding served. Whether the entry may be used
    /// at all is the caller's decision.
    /// - Parameters:
    ///   - cacheStatus: the `Cache-Status` to send; by default a hit with its `ttl`.
    ///   - disconnected: the answer stands in for an origin that could not answer (`Larder-Offline: 1`).
    ///   - access: for a declared request's answer, the CORS grant it is given with.
    func serveCached(
        _ entry: CachedEntry,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        detail: String?,
        now: Date,
        cacheStatus: CacheStatus? = nil,
        disconnected: Bool = false,
        access: DeclaredAnswerAccess = .open
    ) async throws -> Outcome? {
        let (age, hitStatus) = self.usage.answered(entry.key, freshness: self.freshness(of: entry), now: now, detail: detail)
        let cacheStatus = cacheStatus ?? hitStatus
        var stored = entry.storedForAnswer
        let personal = AnswerOwner.recordedDigest(in: entry.varyRequestHeaders) != nil
        if disconnected || personal, request.headers.contains(name: "origin"), let url = try? HTTPURL(parsing: request.uri),
            Self.corsPage(request.headers, url: url) != nil
        {
            // In the origin's place, or the user's own copy: only what the origin granted this
            // page for this URL (with credentials, for a personal copy), not a grant a stored copy
            // carries for another page, or one learned on another URL (docs/SERVING.md, "CORS when
            // the origin cannot answer").
            let grant = await self.corsGrantInOriginsPlace(request, url: url, stored: stored.headers, personal: personal)
            stored.headers = CORSGrant.answering(stored.headers, with: grant)
        }
        stored.headers = access.headers(stored.headers)
        guard
            let answer = StoredAnswer.plan(
                stored, request: StoredAnswer.Request(head: request), age: age, cacheStatus: cacheStatus,
                disconnected: disconnected)
        else {
            return nil
        }
        let status = HTTPResponseStatus(statusCode: answer.status)
        let headers = HTTPHeaders(answer.headers)
        let done = Outcome(status: answer.status, cacheStatus: cacheStatus, reusable: !answer.close)
        switch answer.body {
        case .none:
            try await writer.whole(status, headers, body: nil)
            return done
        case .bytes(let slice) where entry.bodySize <= self.smallBodies.maximumBodySize:
            // A small body comes from memory (read once, kept by its content hash).
            guard let body = await self.smallBody(entry) else { return nil }
            try await writer.whole(status, headers, body: body.getSlice(at: body.readerIndex + Int(slice.lowerBound), length: slice.count))
            return done
        case .bytes(let slice) where writer.sendsBodyFiles:
            // A larger one, whole or a range, goes from its file by `sendfile`: the kernel copies
            // it to the socket, with no read through the thread pool and no buffer per 64 KiB.
            guard let file = StoredBodyFile.open(entry.bodyPath, size: entry.bodySize, range: slice) else {
                self.logger.warning("cached body unreadable or not the indexed size", metadata: ["path": "\(entry.bodyPath)"])
                return nil
            }
            try await writer.whole(status, headers, file: file)
            return done
        case .bytes(let slice):
            // Through TLS, the bytes must pass through Larder: read in 64 KiB chunks.
            guard let handle = await self.openBody(entry) else { return nil }
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
                return Outcome(status: answer.status, cacheStatus: cacheStatus, reusable: false)
            }
            try await writer.end()
            return done
        case .decoded(let coding):
            guard let handle = await self.openBody(entry) else { return nil }
            do {
                try await writer.head(status, headers)
                for try await piece in handle.readChunks(in: 0..<entry.bodySize, chunkLength: .kibibytes(64)).decoded(coding) {
                    try await writer.body(piece)
                }
            } catch let error as ContentDecodingError {
                // The stored body does not decode: the client must not take what it got for the whole.
                try? await handle.close()
                self.logger.error("cached body does not decode", metadata: ["key": "\(entry.key)", "error": "\(error)"])
                return Outcome(status: answer.status, cacheStatus: cacheStatus, reusable: false)
            } catch {
                try? await handle.close()
                throw error
            }
            try? await handle.close()
            try await writer.end()
            return done
        case .decodedRange(let coding, let range):
            guard let handle = await self.openBody(entry) else { return nil }
            let outcome: Outcome?
            do {
                outcome = try await self.serveDecodedRange(
                    range, of: handle, coding: coding, entry: entry, headers: headers, writer: writer, answer: answer, done: done)
            } catch {
                try? await handle.close()
                throw error
            }
            try? await handle.close()
            return outcome
        }
    }

    /// Answers a range of a stored body Larder decodes for the client (``StoredAnswer/Body/decodedRange(_:_:)``):
    /// decodes up to the range's end to learn what of it there is, then again to send it, never
    /// decoding past the range. Nil, having written nothing, when the body does not decode there.
    private func serveDecodedRange(
        _ range: Range<Int64>, of handle: ReadFileHandle, coding: ContentCoding, entry: CachedEntry, headers: HTTPHeaders,
        writer: ResponseWriter, answer: StoredAnswer, done: Outcome
    ) async throws -> Outcome? {
        // A file's chunk sequence is read once: each pass makes its own.
        func decodedPieces() -> DecodedBody<FileChunks> {
            handle.readChunks(in: 0..<entry.bodySize, chunkLength: .kibibytes(64)).decoded(coding)
        }
        var decoded: Int64 = 0
        var complete = true
        do {
            for try await piece in decodedPieces() {
                decoded += Int64(piece.readableBytes)
                if decoded >= range.upperBound {
                    complete = false
                    break
                }
            }
        } catch let error as ContentDecodingError {
            self.logger.error("cached body does not decode", metadata: ["key": "\(entry.key)", "error": "\(error)"])
            return nil
        }
        guard let part = StoredAnswer.decodedPart(range, decoded: decoded, complete: complete) else {
            let unsatisfiable = StoredAnswer.unsatisfiable(length: decoded, cacheStatus: answer.cacheStatus, close: answer.close)
            try await writer.whole(.rangeNotSatisfiable, HTTPHeaders(unsatisfiable.headers), body: nil)
            return Outcome(status: 416, cacheStatus: answer.cacheStatus, reusable: !answer.close)
        }
        var partHeaders = headers
        partHeaders.add(name: "content-range", value: part.contentRange)
        partHeaders.add(name: "content-length", value: String(part.range.count))
        try await writer.head(.partialContent, partHeaders)
        var position: Int64 = 0
        var sent: Int64 = 0
        do {
            for try await piece in decodedPieces() {
                let start = position
                position += Int64(piece.readableBytes)
                let lower = max(start, part.range.lowerBound)
                let upper = min(position, part.range.upperBound)
                if lower < upper, let bytes = piece.getSlice(at: piece.readerIndex + Int(lower - start), length: Int(upper - lower)) {
                    sent += Int64(bytes.readableBytes)
                    try await writer.body(bytes)
                }
                if position >= part.range.upperBound {
                    break
                }
            }
        } catch is ContentDecodingError {
            // It decoded a moment ago: the file changed under us.
        }
        guard sent == Int64(part.range.count) else {
            self.logger.error("cached body changed while it was read", metadata: ["key": "\(entry.key)"])
            return Outcome(status: 206, cacheStatus: answer.cacheStatus, reusable: false)
        }
        try await writer.end()
        return done
    }

    /// Opens a stored body for reading; nil (logged) when it cannot be.
    func openBody(_ entry: CachedEntry) async -> ReadFileHandle? {
        do {
            return try await FileSystem.shared.openFile(forReadingAt: FilePath(entry.bodyPath))
        } catch {
            self.logger.warning("cached body unreadable", metadata: ["path": "\(entry.bodyPath)", "error": "\(error)"])
            return nil
        }
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
}

extension CachedEntry {
    /// The entry as ``StoredAnswer`` plans answers from it. (SPI: the micro benchmarks plan answers
    /// as the ordinary path does.)
    @_spi(Benchmarks) public var storedForAnswer: StoredAnswer.Stored {
        StoredAnswer.Stored(status: self.status, headers: self.headers, bodySize: self.bodySize)
    }
}

extension StoredAnswer.Request where Headers == HTTPHeaders {
    /// What of a client's request head shapes a stored answer. (SPI: the micro benchmarks describe
    /// requests as the ordinary path does.)
    @_spi(Benchmarks) public init(head: HTTPRequestHead) {
        self.init(
            isHead: head.method == .HEAD,
            headers: head.headers,
            keepAlive: head.isKeepAlive,
            supportsChunked: head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        )
    }
}
