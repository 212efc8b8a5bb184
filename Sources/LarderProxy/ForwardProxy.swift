import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOFileSystem
import NIOHTTP1

/// Serves absolute-form requests for other hosts: GET and HEAD through the cache by the strategy in
/// force (an RFC 9111 private cache by default), storing what may be stored as it streams to the
/// client, and answering from the cache when upstream fails, the host is backing off, or the proxy
/// is offline.
final class ForwardProxy: Sendable {
    let store: Store
    let upstream: any Upstream
    let health: UpstreamHealthRegistry
    let offline: OfflineSwitch
    let configuration: ProxyConfiguration
    let usage: UsageRecorder
    let budget: StoreBudget
    /// Responses that could not be stored, for the log and /dev/offline.
    let storeFailures: StoreWriteFailures
    let logger: Logger
    /// Upstream fetches of misses in flight, shared by concurrent requests for one key.
    let inFlight = InFlightFetches()
    /// Keys being refreshed in the background, so one refresh at a time runs per key.
    let backgroundRefreshes = BackgroundRefreshes()
    /// Small bodies kept in memory by content hash.
    let smallBodies = SmallBodyCache()
    /// Freshness of recently served stored heads.
    let freshnessMemo = FreshnessMemo()
    /// Opens the upstream side of WebSocket relays.
    let webSockets: WebSocketUpstream

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
        self.storeFailures = StoreWriteFailures(logger: logger)
        self.webSockets = WebSocketUpstream(
            additionalCAFile: configuration.upstreamCAFile, connectTimeout: configuration.connectTimeout)
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
        let lookup = await self.lookup(key, request: head)
        let now = Date()
        let route = self.configuration.route(for: key)
        let strategy = route?.strategy ?? Self.defaultStrategy(for: url, entry: lookup.entry)

        if self.offline.isOffline {
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "offline", reason: nil, status: .gatewayTimeout, now: now)
        }

        let context = CacheDecision.Context(
            strategy: strategy,
            routeMaxAge: route?.maxAge,
            networkTimeout: route?.networkTimeout ?? self.configuration.networkTimeout,
            request: RequestCacheDirectives(cacheControl: head.headers["cache-control"], pragma: head.headers["pragma"])
        )
        let stored = lookup.entry.map { self.freshness(of: $0) }
        switch CacheDecision.decide(context, stored: stored, now: now) {
        case .answerFromCache(var detail):
            if route == nil, lookup.entry?.kind == .precached {
                detail = "precached"
            }
            if let entry = lookup.entry, let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: detail, now: now) {
                return outcome
            }
        case .answerAndRefresh(let detail):
            if let entry = lookup.entry, let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: detail, now: now) {
                self.refreshInBackground(key: key, url: url, request: head, entry: entry)
                return outcome
            }
        case .gatewayTimeout(let detail):
            let cacheStatus = CacheStatus.forward(lookup.missReason, detail: detail)
            let page = StatusPage(
                status: .gatewayTimeout,
                title: "Not cached",
                paragraphs: ["The request may only be answered from the cache (\(detail)), and Larder has no copy it may use."],
                url: url.absoluteString
            )
            try await writer.page(page, cacheStatus: cacheStatus, close: false, isHead: head.method == .HEAD)
            return Outcome(status: 504, cacheStatus: cacheStatus, reusable: true)
        case .forward(let reason, let timeout):
            return try await self.forward(head, url: url, key: key, lookup: lookup, writer: writer, strategy: strategy, reason: reason, timeout: timeout)
        }
        // The stored body could not be opened: fetch as for a miss.
        return try await self.forward(head, url: url, key: key, lookup: Lookup(entry: nil, missReason: .uriMiss), writer: writer, strategy: strategy, reason: .uriMiss, timeout: nil)
    }

    /// Sends a cacheable request upstream: the host's back-off first, then coalescing of plain
    /// misses (a range is answered from the full body either way, but only plain misses wait on
    /// another request's), then the fetch.
    private func forward(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        key: CacheKey,
        lookup: Lookup,
        writer: ResponseWriter,
        strategy: CachingStrategy,
        reason: CacheStatus.ForwardReason,
        timeout: Duration?
    ) async throws -> Outcome {
        let now = Date()
        guard self.health.shouldAttempt(host: url.host, now: now) else {
            let reason = "\(url.host) failed repeatedly and is backing off."
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "upstream-backoff", reason: reason, status: .badGateway, now: now)
        }
        let fetch = Fetch(request: head, url: url, key: key, lookup: lookup, strategy: strategy, reason: reason, timeout: timeout)
        guard lookup.entry == nil, head.method != .HEAD, !head.headers.contains(name: "range"), strategy != .networkOnly else {
            return try await self.fetchAndRelay(fetch, writer: writer)
        }
        switch self.inFlight.join(key) {
        case .leader(let flight):
            var stored = false
            // Followers are woken whatever happens: a failed fetch or a client gone mid-body.
            defer { self.inFlight.finish(key, flight: flight, stored: stored) }
            let outcome = try await self.fetchAndRelay(fetch, writer: writer)
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
            return try await self.fetchAndRelay(fetch, writer: writer)
        }
    }

    /// One cacheable request on its way upstream, with what the cache knows about it.
    struct Fetch: Sendable {
        var request: HTTPRequestHead
        var url: HTTPURL
        var key: CacheKey
        var lookup: Lookup
        var strategy: CachingStrategy
        var reason: CacheStatus.ForwardReason
        var timeout: Duration?

        /// The stored response this fetch validates, when there is one the strategy may use.
        var validating: CachedEntry? {
            self.strategy == .networkOnly ? nil : self.lookup.entry
        }
    }

    /// Fetches a GET or HEAD upstream and relays (and stores) the answer, or falls back to the
    /// cache when upstream fails.
    private func fetchAndRelay(_ fetch: Fetch, writer: ResponseWriter) async throws -> Outcome {
        let head = fetch.request
        let url = fetch.url
        let request = self.upstreamRequest(for: fetch)
        let requestTime = Date()
        let response: UpstreamResponse
        do {
            // With a usable copy at hand, a slow network must not hold the user up for long; the
            // late answer is still stored.
            let timeout = fetch.validating == nil ? nil : fetch.timeout
            switch try await self.fetch(request, headTimeout: timeout) {
            case .response(let answer):
                response = answer
            case .timedOut(let pending):
                self.absorbInBackground(pending, fetch: fetch, requestTime: requestTime)
                let reason = "no answer within \(timeout ?? .zero)"
                return try await self.fallback(fetch.lookup, request: head, url: url, writer: writer, detail: "network-timeout", reason: reason, status: .gatewayTimeout, now: Date())
            }
        } catch let error as UpstreamError {
            if error.isConnectFailure {
                self.health.recordConnectFailure(host: url.host, description: error.description)
            }
            let status: HTTPResponseStatus = error.kind == .timeout || error.kind == .connectTimeout ? .gatewayTimeout : .badGateway
            let lookup = fetch.strategy == .networkOnly ? Lookup(entry: nil, missReason: fetch.lookup.missReason) : fetch.lookup
            return try await self.fallback(lookup, request: head, url: url, writer: writer, detail: "upstream-unreachable", reason: error.description, status: status, now: Date())
        }
        self.health.recordSuccess(host: url.host)

        // stale-if-error (RFC 5861 section 4, and DESIGN.md): a 5xx with a usable copy serves the copy.
        if response.head.status >= 500, let entry = fetch.validating,
            CacheDecision.mayAnswerDisconnected(self.freshness(of: entry), precached: entry.kind == .precached, now: Date()),
            let outcome = try await self.serveCached(entry, request: head, writer: writer, detail: "upstream-\(response.head.status)", now: Date())
        {
            return outcome
        }

        // A 304 to Larder's own conditional request validates the stored copy (RFC 9111 4.3.4).
        if response.head.status == 304, let entry = fetch.validating {
            let refreshed = await self.refresh(entry, with: response, requestTime: requestTime)
            var cacheStatus = CacheStatus.forward(fetch.reason, status: 304, stored: refreshed != nil)
            cacheStatus.detail = "revalidated"
            if let outcome = try await self.serveCached(refreshed ?? entry, request: head, writer: writer, detail: nil, now: Date(), cacheStatus: cacheStatus) {
                return outcome
            }
            // The validated copy vanished meanwhile (evicted, purged, replaced): that 304 answers
            // nothing the client asked, so fetch again without validators.
            var unconditional = fetch
            unconditional.lookup = Lookup(entry: nil, missReason: .uriMiss)
            unconditional.timeout = nil
            return try await self.fetchAndRelay(unconditional, writer: writer)
        }

        let target = self.storeTarget(for: fetch, response: response.head, requestTime: requestTime)
        return try await self.relay(
            response,
            request: head,
            writer: writer,
            forwardReason: fetch.reason == .uriMiss ? fetch.lookup.missReason : fetch.reason,
            storeAs: target.storeAs,
            notStoredReason: target.notStoredReason
        )
    }

    /// The upstream request for a fetch: the client's end-to-end headers, without its range (the
    /// full body is fetched so that it can be stored), and with Larder's own validators when it
    /// holds a copy.
    func upstreamRequest(for fetch: Fetch) -> UpstreamRequest {
        var headers = Self.upstreamHeaders(fetch.request.headers)
        // Larder negotiates the coding itself (see EncodingNegotiation), so one stored
        // representation serves every client.
        headers.removeAll { ["range", "if-range", "accept-encoding"].contains($0.name.lowercased()) }
        headers.append(("Accept-Encoding", EncodingNegotiation.upstreamAcceptEncoding))
        if let entry = fetch.validating {
            // Only Larder's own validators go upstream, so a 304 always speaks of the stored copy;
            // the client's conditional is answered from it afterwards.
            headers.removeAll { ["if-none-match", "if-modified-since"].contains($0.name.lowercased()) }
            if let etag = entry.header("etag") { headers.append(("If-None-Match", etag)) }
            if let lastModified = entry.header("last-modified") { headers.append(("If-Modified-Since", lastModified)) }
        }
        var request = UpstreamRequest(method: fetch.request.method == .HEAD ? "HEAD" : "GET", url: fetch.url.absoluteString, headers: headers)
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        return request
    }

    /// Where (and whether) an upstream answer to a fetch is stored.
    func storeTarget(for fetch: Fetch, response: UpstreamResponseHead, requestTime: Date) -> (storeAs: StoreTarget?, notStoredReason: String?) {
        if fetch.request.method == .HEAD {
            return (nil, "head")
        }
        if fetch.strategy == .networkOnly {
            return (nil, "network-only")
        }
        // An answer to a client's precondition (a 412, say) is not the resource for everyone.
        if fetch.request.headers.contains(name: "if-match") || fetch.request.headers.contains(name: "if-unmodified-since") {
            return (nil, "precondition")
        }
        let vary = response.values(forHeader: "vary")
        let storability = Storability.evaluate(
            method: "GET",
            status: response.status,
            requestCacheControl: fetch.request.headers["cache-control"],
            responseCacheControl: response.values(forHeader: "cache-control"),
            vary: vary,
            expires: response.values(forHeader: "expires"),
            contentType: response.values(forHeader: "content-type").first
        )
        guard storability == .storable else {
            if case .notStorable(let reason) = storability { return (nil, reason) }
            return (nil, nil)
        }
        let values = VaryKey.values(vary, request: fetch.request.headers)
        let target = StoreTarget(key: VaryKey.storageKey(fetch.key, values: values), url: fetch.url, requestTime: requestTime, varyValues: values)
        return (target, nil)
    }

    /// Where an upstream answer is stored.
    struct StoreTarget: Sendable {
        /// The key, or the variant's key for a response that varies.
        var key: CacheKey
        var url: HTTPURL
        var requestTime: Date
        /// The request's values of the headers the response varies on.
        var varyValues: [HeaderField]
    }

    /// Applies a 304 to the stored entry (headers merged, times renewed, body kept); nil when the
    /// entry changed meanwhile or the index cannot be written.
    func refresh(_ entry: CachedEntry, with response: UpstreamResponse, requestTime: Date) async -> CachedEntry? {
        let headers = NotModifiedMerge.merge(stored: entry.headers, notModified: HopByHopHeaders.removing(from: HTTPHeaders(response.head.headers)).map { ($0.name, $0.value) })
        do {
            return try await self.store.refreshHead(key: entry.key, bodyHash: entry.bodyHash, headers: headers, requestTime: requestTime, responseTime: Date())
        } catch {
            self.logger.warning("cannot refresh a revalidated entry", metadata: ["key": "\(entry.key)", "error": "\(error)"])
            return nil
        }
    }

    // MARK: - The cache's side

    struct Lookup: Sendable {
        /// The newest stored response whose varied request headers match the request's.
        var entry: CachedEntry?
        var missReason: CacheStatus.ForwardReason
    }

    private func lookup(_ key: CacheKey, request: HTTPRequestHead) async -> Lookup {
        let candidates: [CachedEntry]
        do {
            candidates = try await self.store.variants(of: key)
        } catch {
            self.logger.error("cache lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return Lookup(entry: nil, missReason: .uriMiss)
        }
        guard !candidates.isEmpty else { return Lookup(entry: nil, missReason: .uriMiss) }
        for entry in candidates where entry.isSelected(for: request.headers) {
            return Lookup(entry: entry, missReason: .uriMiss)
        }
        return Lookup(entry: nil, missReason: .varyMiss)
    }

    /// The strategy for a URL no configured route covers (DESIGN.md, Serving): precached assets
    /// cache-first, precached pages and manifests network-first, everything else the HTTP cache.
    static func defaultStrategy(for url: HTTPURL, entry: CachedEntry?) -> CachingStrategy {
        guard entry?.kind == .precached else { return .http }
        return Self.isNetworkFirst(url) ? .networkFirst : .cacheFirst
    }

    /// The stored response's freshness (RFC 9111 section 4.2), computed once per stored head.
    func freshness(of entry: CachedEntry) -> ResponseFreshness {
        self.freshnessMemo.freshness(of: entry)
    }

    /// Answers without upstream (offline, failing or backing off): the stored copy when it may be
    /// served disconnected, else an error page that says why. `reason` nil means offline mode.
    private func fallback(
        _ lookup: Lookup,
        request: HTTPRequestHead,
        url: HTTPURL,
        writer: ResponseWriter,
        detail: String,
        reason: String?,
        status: HTTPResponseStatus,
        now: Date
    ) async throws -> Outcome {
        var unusable: String?
        var status = status
        if let entry = lookup.entry {
            let freshness = self.freshness(of: entry)
            if CacheDecision.mayAnswerDisconnected(freshness, precached: entry.kind == .precached, now: now) {
                if let outcome = try await self.serveCached(entry, request: request, writer: writer, detail: detail, now: now) {
                    return outcome
                }
                unusable = "The cached copy cannot be read, or is in a content coding this client does not accept."
            } else {
                // RFC 9111 section 4.2.4: a disconnected cache answers 504 rather than reuse it.
                let directive = freshness.mustRevalidate ? "must-revalidate" : "no-cache"
                unusable = "The cached copy may not be served without revalidation (\(directive))."
            }
            status = .gatewayTimeout
        }
        let cacheStatus = CacheStatus.forward(lookup.entry == nil ? lookup.missReason : .stale, detail: detail)
        let page: StatusPage
        if let reason {
            page = StatusPage.upstreamFailure(url: url.absoluteString, status: status, reason: reason, cachedButUnusable: unusable)
        } else if let unusable {
            page = StatusPage.upstreamFailure(url: url.absoluteString, status: .gatewayTimeout, reason: "Larder is in offline mode.", cachedButUnusable: unusable)
        } else {
            page = .offlineMiss(url: url.absoluteString)
        }
        try await writer.page(page, cacheStatus: cacheStatus, close: false, isHead: request.method == .HEAD)
        return Outcome(status: Int(page.status.code), cacheStatus: cacheStatus, reusable: true)
    }

    // MARK: - Helpers

    /// The outcome of waiting for a response head at most some time.
    enum FetchResult: Sendable {
        case response(UpstreamResponse)
        /// The head did not come in time; the request goes on in this task.
        case timedOut(Task<UpstreamResponse, any Error>)
    }

    /// Sends the request and waits for the response head, at most `headTimeout` when given. On a
    /// timeout the request is not cancelled: its answer can still be stored.
    private func fetch(_ request: UpstreamRequest, headTimeout: Duration?) async throws -> FetchResult {
        let upstream = self.upstream
        guard let headTimeout else {
            return .response(try await upstream.execute(request))
        }
        let task = Task { try await upstream.execute(request) }
        let race = FirstArrival()
        let answered = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.begin(continuation)
                Task {
                    _ = try? await task.value
                    race.arrive(true)
                }
                race.timer = Task {
                    try? await Task.sleep(for: headTimeout)
                    race.arrive(false)
                }
            }
        } onCancel: {
            task.cancel()
            race.arrive(false)
        }
        race.timer?.cancel()
        guard answered else { return .timedOut(task) }
        return .response(try await task.value)
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

    static func addProxyHeaders(_ headers: inout HTTPHeaders, cacheStatus: CacheStatus, close: Bool) {
        let via = headers["via"] + ["1.1 larder"]
        headers.remove(name: "via")
        headers.add(name: "Via", value: via.joined(separator: ", "))
        headers.add(name: "Cache-Status", value: cacheStatus.description)
        if close {
            headers.add(name: "Connection", value: "close")
        }
    }

    /// A single valid Content-Length, or nil.
    static func contentLength(_ headers: HTTPHeaders) -> Int64? {
        let values = Set(headers["content-length"].flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() })
        guard values.count == 1, let value = values.first, let length = Int64(value), length >= 0 else { return nil }
        return length
    }
}
