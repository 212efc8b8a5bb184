import Foundation
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOFileSystem
import NIOHTTP1

/// Serves absolute-form requests for other hosts: network-first for GET and HEAD, storing
/// what may be stored as it streams to the client, and answering from the cache when upstream
/// fails, the host is backing off, or the proxy is offline.
final class ForwardProxy: Sendable {
    let store: Store
    let upstream: any Upstream
    let health: UpstreamHealthRegistry
    let offline: OfflineSwitch
    let configuration: ProxyConfiguration
    let usage: UsageRecorder
    let budget: StoreBudget
    let logger: Logger
    /// Upstream fetches of misses in flight, shared by concurrent requests for one key.
    let inFlight = InFlightFetches()

    init(
        store: Store,
        upstream: any Upstream,
        health: UpstreamHealthRegistry,
        offline: OfflineSwitch,
        configuration: ProxyConfiguration,
        usage: UsageRecorder,
        budget: StoreBudget,
        logger: Logger
    ) {
        self.store = store
        self.usage = usage
        self.budget = budget
        self.upstream = upstream
        self.health = health
        self.offline = offline
        self.configuration = configuration
        self.logger = logger
    }

    /// What happened to one request, for logs and for whether the connection may be reused.
    struct Outcome: Sendable {
        var status: Int
        var cacheStatus: CacheStatus?
        /// False when the response could not be completed (the connection must close).
        var reusable: Bool
    }

    // MARK: - GET and HEAD through the cache

    /// Serves a GET or HEAD without a request body.
    func serveCacheable(_ head: HTTPRequestHead, url: HTTPURL, writer: ResponseWriter) async throws -> Outcome {
        let key = CacheKey(url: url, filter: self.configuration.queryFilter)
        let isHead = head.method == .HEAD
        let lookup = await self.lookup(key, request: head)
        let now = Date()

        if self.offline.isOffline {
            if let entry = lookup.entry,
                let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: "offline", now: now)
            {
                return outcome
            }
            let status = CacheStatus.forward(lookup.missReason, detail: "offline")
            try await writer.page(.offlineMiss(url: url.absoluteString), cacheStatus: status, close: false, isHead: isHead)
            return Outcome(status: 504, cacheStatus: status, reusable: true)
        }

        // Precached assets are an out-of-band contract: served without asking the network.
        // Pages and manifests stay network-first so a new deploy is seen.
        if let entry = lookup.entry, entry.kind == .precached, !Self.isNetworkFirst(url),
            let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: "precached", now: now)
        {
            return outcome
        }

        guard self.health.shouldAttempt(host: url.host, now: now) else {
            let reason = "\(url.host) failed repeatedly and is backing off."
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "upstream-backoff", reason: reason, status: .badGateway, now: now)
        }

        // Concurrent misses for one key share one upstream request (a range is answered from the
        // full body either way, but only plain misses wait on another request's).
        guard lookup.entry == nil, !isHead, !head.headers.contains(name: "range") else {
            return try await self.fetchAndRelay(head, url: url, key: key, lookup: lookup, writer: writer)
        }
        switch self.inFlight.join(key) {
        case .leader(let flight):
            var stored = false
            // Followers are woken whatever happens: a failed fetch or a client gone mid-body.
            defer { self.inFlight.finish(key, flight: flight, stored: stored) }
            let outcome = try await self.fetchAndRelay(head, url: url, key: key, lookup: lookup, writer: writer)
            stored = outcome.cacheStatus?.stored == true
            return outcome
        case .follower(let flight):
            if await flight.wait(timeout: self.configuration.idleTimeout) {
                let shared = await self.lookup(key, request: head)
                if let entry = shared.entry,
                    let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: "coalesced", now: Date())
                {
                    return outcome
                }
            }
            // The leader stored nothing usable (or took too long): fetch as if alone.
            return try await self.fetchAndRelay(head, url: url, key: key, lookup: lookup, writer: writer)
        }
    }

    /// Fetches a GET or HEAD upstream and relays (and stores) the answer, or falls back to the
    /// cache when upstream fails.
    private func fetchAndRelay(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        key: CacheKey,
        lookup: Lookup,
        writer: ResponseWriter
    ) async throws -> Outcome {
        let isHead = head.method == .HEAD
        // A range is answered from the full body, which is fetched whole so that it can be stored.
        var forwardedHeaders = Self.upstreamHeaders(head.headers)
        forwardedHeaders.removeAll { ["range", "if-range"].contains($0.name.lowercased()) }
        var request = UpstreamRequest(method: isHead ? "HEAD" : "GET", url: url.absoluteString, headers: forwardedHeaders)
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        let requestTime = Date()
        let response: UpstreamResponse
        do {
            // With a usable copy at hand, a slow network must not hold the user up for long.
            let headTimeout = lookup.entry == nil ? nil : self.configuration.networkTimeout
            response = try await self.fetch(request, headTimeout: headTimeout)
        } catch let error as UpstreamError {
            if error.isConnectFailure {
                self.health.recordConnectFailure(host: url.host, description: error.description)
            }
            let status: HTTPResponseStatus = error.kind == .timeout || error.kind == .connectTimeout ? .gatewayTimeout : .badGateway
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "upstream-unreachable", reason: error.description, status: status, now: Date())
        } catch is NetworkTimeout {
            let reason = "no answer within \(self.configuration.networkTimeout)"
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "network-timeout", reason: reason, status: .gatewayTimeout, now: Date())
        }
        self.health.recordSuccess(host: url.host)

        // stale-if-error (RFC 5861 section 4, and DESIGN.md): a 5xx with a usable copy serves the copy.
        if response.head.status >= 500, let entry = lookup.entry,
            let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: "upstream-\(response.head.status)", now: Date())
        {
            return outcome
        }

        let storability: Storability =
            isHead
            ? .notStorable(reason: "head")
            : Storability.evaluate(
                method: "GET",
                status: response.head.status,
                requestCacheControl: head.headers["cache-control"],
                responseCacheControl: response.head.headers.filter { $0.name.lowercased() == "cache-control" }.map(\.value),
                vary: response.head.headers.filter { $0.name.lowercased() == "vary" }.map(\.value)
            )
        return try await self.relay(
            response,
            request: head,
            writer: writer,
            forwardReason: lookup.entry == nil ? lookup.missReason : .request,
            storeAs: storability == .storable ? (key, url, requestTime) : nil,
            notStoredReason: { if case .notStorable(let reason) = storability { return reason } else { return nil } }()
        )
    }

    // MARK: - Everything else

    /// Forwards a request that the cache does not answer (unsafe methods, requests with bodies).
    func serveUncacheable(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        body: UpstreamRequestBody?,
        writer: ResponseWriter
    ) async throws -> Outcome {
        let isHead = head.method == .HEAD
        if self.offline.isOffline {
            let status = CacheStatus.forward(.method, detail: "offline")
            let page = StatusPage(
                status: .gatewayTimeout,
                title: "Offline",
                paragraphs: ["Larder is in offline mode; \(head.method.rawValue) requests need the network."],
                url: url.absoluteString
            )
            try await writer.page(page, cacheStatus: status, close: false, isHead: isHead)
            return Outcome(status: 504, cacheStatus: status, reusable: true)
        }
        var request = UpstreamRequest(method: head.method.rawValue, url: url.absoluteString, headers: Self.upstreamHeaders(head.headers), body: body)
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        let response: UpstreamResponse
        do {
            response = try await self.upstream.execute(request)
        } catch let error as UpstreamError {
            if error.isConnectFailure {
                self.health.recordConnectFailure(host: url.host, description: error.description)
            }
            let status = CacheStatus.forward(.method, detail: "upstream-unreachable")
            let code: HTTPResponseStatus = error.kind == .timeout || error.kind == .connectTimeout ? .gatewayTimeout : .badGateway
            let page = StatusPage.upstreamFailure(url: url.absoluteString, status: code, reason: error.description, cachedButUnusable: "")
            try await writer.page(page, cacheStatus: status, close: body != nil, isHead: isHead)
            return Outcome(status: Int(code.code), cacheStatus: status, reusable: body == nil)
        }
        self.health.recordSuccess(host: url.host)
        return try await self.relay(response, request: head, writer: writer, forwardReason: .method, storeAs: nil, notStoredReason: nil)
    }

    // MARK: - Relaying an upstream response

    /// Streams an upstream response to the client, storing it on the way when `storeAs` is set.
    private func relay(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        forwardReason: CacheStatus.ForwardReason,
        storeAs: (key: CacheKey, url: HTTPURL, requestTime: Date)?,
        notStoredReason: String?
    ) async throws -> Outcome {
        let responseTime = Date()
        let isHead = request.method == .HEAD
        var upstreamHeaders = HTTPHeaders(response.head.headers.map { ($0.name, $0.value) })
        upstreamHeaders = HopByHopHeaders.removing(from: upstreamHeaders)
        let declaredLength = Self.contentLength(upstreamHeaders)
        let status = HTTPResponseStatus(statusCode: response.head.status, reasonPhrase: response.head.reason)
        let mayHaveBody = !isHead && status.mayHaveResponseBody

        var bodyWriter: BodyWriter?
        if storeAs != nil {
            do {
                bodyWriter = try self.store.makeBodyWriter()
            } catch {
                self.logger.warning("cannot store response", metadata: ["url": "\(request.uri)", "error": "\(error)"])
            }
        }
        var cacheStatus = CacheStatus.forward(forwardReason, status: response.head.status, stored: bodyWriter != nil)
        if let notStoredReason, forwardReason != .method {
            cacheStatus.detail = "not-stored-\(notStoredReason)"
        }

        var headers = upstreamHeaders
        headers.remove(name: "content-length")
        var closeAfter = !request.isKeepAlive
        // With a known length, the client's range maps onto the full body before it streams.
        var slice: Range<Int64>?
        var status206 = false
        var rangeUnsatisfiable = false
        if let declaredLength, mayHaveBody {
            let resolution = Self.rangeResolution(
                request,
                status: response.head.status,
                length: declaredLength,
                etag: upstreamHeaders["etag"].first,
                lastModified: upstreamHeaders["last-modified"].first
            )
            switch resolution {
            case .full:
                break
            case .partial(let range):
                slice = range
                status206 = true
            case .unsatisfiable:
                slice = 0..<0
                rangeUnsatisfiable = true
            }
        }
        if let declaredLength {
            if status206, let slice {
                headers.add(name: "content-range", value: ByteRangeRequest.contentRange(slice, length: declaredLength))
                headers.add(name: "content-length", value: String(slice.count))
            } else {
                headers.add(name: "content-length", value: String(declaredLength))
            }
        } else if mayHaveBody {
            if request.version.major > 1 || (request.version.major == 1 && request.version.minor >= 1) {
                headers.add(name: "transfer-encoding", value: "chunked")
            } else {
                closeAfter = true  // HTTP/1.0 without a length: the body ends when the connection closes
            }
        }
        if rangeUnsatisfiable, let declaredLength {
            // The client's answer is complete at once; the body is still read to be stored.
            try await self.writeUnsatisfiable(length: declaredLength, cacheStatus: cacheStatus, request: request, writer: writer)
        } else {
            Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: closeAfter)
            try await writer.head(status206 ? .partialContent : status, headers)
        }

        var position: Int64 = 0
        do {
            for try await chunk in response.body {
                if let writerToDisk = bodyWriter {
                    do {
                        try chunk.withUnsafeReadableBytes { try writerToDisk.write($0) }
                    } catch {
                        self.logger.warning("storing response failed", metadata: ["url": "\(request.uri)", "error": "\(error)"])
                        writerToDisk.discard()
                        bodyWriter = nil
                    }
                }
                let chunkStart = position
                position += Int64(chunk.readableBytes)
                guard mayHaveBody else { continue }
                if let slice {
                    let lower = max(chunkStart, slice.lowerBound)
                    let upper = min(position, slice.upperBound)
                    if lower < upper, let part = chunk.getSlice(at: chunk.readerIndex + Int(lower - chunkStart), length: Int(upper - lower)) {
                        try await writer.body(part)
                    }
                } else {
                    try await writer.body(chunk)
                }
            }
        } catch {
            // A truncated or failed upstream body: the client must see a broken response (the
            // connection closes), and nothing of it is stored.
            bodyWriter?.discard()
            self.logger.notice("upstream body failed", metadata: ["url": "\(request.uri)", "error": "\(error)"])
            return Outcome(status: response.head.status, cacheStatus: cacheStatus, reusable: false)
        }
        if !rangeUnsatisfiable {
            try await writer.end()
        }

        if let bodyWriter, let storeAs {
            let stored = StoredResponseHead(
                url: storeAs.url.absoluteString,
                status: response.head.status,
                headers: upstreamHeaders.map { HeaderField(name: $0.name, value: $0.value) },
                requestTime: storeAs.requestTime,
                responseTime: responseTime,
                varyRequestHeaders: Self.varyValues(upstreamHeaders["vary"], request: request.headers)
            )
            do {
                _ = try await bodyWriter.commit(key: storeAs.key, head: stored, kind: .runtime, expectedLength: declaredLength)
                self.budget.requestEviction()
            } catch {
                self.logger.warning("not stored", metadata: ["url": "\(storeAs.url.absoluteString)", "error": "\(error)"])
            }
        }
        let answered = rangeUnsatisfiable ? 416 : (status206 ? 206 : response.head.status)
        return Outcome(status: answered, cacheStatus: cacheStatus, reusable: !closeAfter)
    }

    // MARK: - Answering from the cache

    private struct Lookup {
        var entry: CachedEntry?
        var missReason: CacheStatus.ForwardReason
    }

    private func lookup(_ key: CacheKey, request: HTTPRequestHead) async -> Lookup {
        let entry: CachedEntry?
        do {
            entry = try await self.store.entry(for: key)
        } catch {
            self.logger.error("cache lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return Lookup(entry: nil, missReason: .uriMiss)
        }
        guard let entry else { return Lookup(entry: nil, missReason: .uriMiss) }
        let varyNames = entry.headers.filter { $0.name.lowercased() == "vary" }.map(\.value)
        guard Self.varyValues(varyNames, request: request.headers) == entry.varyRequestHeaders else {
            return Lookup(entry: nil, missReason: .varyMiss)
        }
        return Lookup(entry: entry, missReason: .uriMiss)
    }

    /// Serves the stored copy if it may be served stale, else an error page.
    private func fallback(
        _ lookup: Lookup,
        request: HTTPRequestHead,
        url: HTTPURL,
        writer: ResponseWriter,
        detail: String,
        reason: String,
        status: HTTPResponseStatus,
        now: Date
    ) async throws -> Outcome {
        var unusable: String?
        var status = status
        if let entry = lookup.entry {
            if let outcome = try await self.serveCached(entry, request: request, writer: writer, detail: detail, now: now) {
                return outcome
            }
            // RFC 9111 section 4.2.4: a disconnected cache answers 504 rather than reuse it.
            unusable = "The cached copy may not be served without revalidation (must-revalidate)."
            status = .gatewayTimeout
        }
        let cacheStatus = CacheStatus.forward(lookup.entry == nil ? lookup.missReason : .stale, detail: detail)
        let page = StatusPage.upstreamFailure(url: url.absoluteString, status: status, reason: reason, cachedButUnusable: unusable)
        try await writer.page(page, cacheStatus: cacheStatus, close: false, isHead: request.method == .HEAD)
        return Outcome(status: Int(status.code), cacheStatus: cacheStatus, reusable: true)
    }

    /// Answers from a stored entry. Returns nil, having written nothing, when the entry must not
    /// be served (stale with must-revalidate) or its body cannot be opened.
    private func serveCached(
        _ entry: CachedEntry,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        detail: String,
        now: Date
    ) async throws -> Outcome? {
        let freshness = ResponseFreshness(
            status: entry.status,
            header: { name in entry.headers.filter { $0.name.lowercased() == name }.map(\.value) },
            requestTime: entry.requestTime,
            responseTime: entry.responseTime
        )
        let isFresh = freshness.isFresh(now: now)
        if !isFresh && freshness.mustRevalidate {
            return nil
        }
        let age = freshness.currentAge(now: now)
        let cacheStatus = CacheStatus.hit(ttl: Int(freshness.lifetime) - age, detail: detail)
        self.usage.recordUse(entry.key)
        var headers = HTTPHeaders(entry.headers.map { ($0.name, $0.value) })
        headers.remove(name: "content-length")
        headers.remove(name: "age")
        headers.remove(name: "content-range")
        headers.add(name: "age", value: String(age))
        if entry.status == 200 {
            headers.replaceOrAdd(name: "accept-ranges", value: "bytes")
        }
        var status = HTTPResponseStatus(statusCode: entry.status)

        if request.method == .HEAD || !status.mayHaveResponseBody {
            headers.add(name: "content-length", value: String(entry.bodySize))
            Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !request.isKeepAlive)
            try await writer.head(status, headers)
            try await writer.end()
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
    private func writeUnsatisfiable(length: Int64, cacheStatus: CacheStatus, request: HTTPRequestHead, writer: ResponseWriter) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "content-range", value: ByteRangeRequest.unsatisfiedContentRange(length: length))
        headers.add(name: "content-length", value: "0")
        Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !request.isKeepAlive)
        try await writer.head(.rangeNotSatisfiable, headers)
        try await writer.end()
    }

    // MARK: - Helpers

    private struct NetworkTimeout: Error {}

    /// Waits for the response head, at most `headTimeout` when given.
    private func fetch(_ request: UpstreamRequest, headTimeout: Duration?) async throws -> UpstreamResponse {
        guard let headTimeout else {
            return try await self.upstream.execute(request)
        }
        let upstream = self.upstream
        return try await withThrowingTaskGroup(of: UpstreamResponse?.self) { group in
            group.addTask { try await upstream.execute(request) }
            group.addTask {
                try await Task.sleep(for: headTimeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw NetworkTimeout()
            }
            return response
        }
    }

    /// Pages (`.html`, folders) and manifests (`.json`) of precached games are refreshed from
    /// the network first; every other precached file is served from the cache.
    static func isNetworkFirst(_ url: HTTPURL) -> Bool {
        let path = url.path.lowercased()
        return path.isEmpty || path.hasSuffix("/") || path.hasSuffix(".html") || path.hasSuffix(".htm") || path.hasSuffix(".json")
    }

    /// Request headers for upstream: end-to-end ones only; curl sets Host and framing itself.
    static func upstreamHeaders(_ headers: HTTPHeaders) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(headers.count + 1)
        var via: [String] = []
        for (name, value) in HopByHopHeaders.removing(from: headers) {
            switch name.lowercased() {
            case "host", "content-length", "expect":
                continue
            case "via":
                via.append(value)
            default:
                result.append((name, value))
            }
        }
        via.append("1.1 larder")
        result.append(("Via", via.joined(separator: ", ")))
        return result
    }

    private static func addProxyHeaders(_ headers: inout HTTPHeaders, cacheStatus: CacheStatus, close: Bool) {
        let via = headers["via"] + ["1.1 larder"]
        headers.remove(name: "via")
        headers.add(name: "Via", value: via.joined(separator: ", "))
        headers.add(name: "Cache-Status", value: cacheStatus.description)
        if close {
            headers.add(name: "Connection", value: "close")
        }
    }

    /// A single valid Content-Length, or nil.
    private static func contentLength(_ headers: HTTPHeaders) -> Int64? {
        let values = Set(headers["content-length"].flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() })
        guard values.count == 1, let value = values.first, let length = Int64(value), length >= 0 else { return nil }
        return length
    }

    /// The request's values of the headers a response varies on, in a canonical form.
    static func varyValues(_ varyFieldValues: [String], request: HTTPHeaders) -> [HeaderField] {
        let names = varyFieldValues.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
        return Set(names).sorted().map { name in
            HeaderField(name: name, value: request[name].joined(separator: ", "))
        }
    }
}
