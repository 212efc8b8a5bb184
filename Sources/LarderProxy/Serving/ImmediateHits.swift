import Foundation
import LarderHTTP
import LarderStore
import NIOCore
import NIOHTTP1

/// Answers the plainest cache hits on the connection's event loop, without a task: a GET or HEAD
/// of an absolute URL (or of an origin-form target inside intercepted TLS, see ``TunnelOrigin``),
/// with no conditional, range or cache directive, for a response whose lookup Larder holds in memory (and its body, when small enough to keep there; a larger one goes from
/// its file by `sendfile`), varying on no request header, that the default strategy serves without the network. Everything else, and anything in doubt, goes the ordinary way; answers are the
/// same either way. A class: the connection's handler calls it for every request, and copying a
/// struct of this many references out of the handler cost a retain and release of each.
final class ImmediateHits: Sendable {
    let store: Store
    /// The proxy's configuration (with its answered-offline routes): routes, the query filter,
    /// declared GETs, the clock.
    let configuration: ProxyConfiguration
    let offline: OfflineSwitch
    let usage: UsageRecorder
    let smallBodies: SmallBodyCache
    let freshnessMemo: FreshnessMemo
    let own: RequestRoute.OwnAuthorities
    let rules: RequestRoute.Rules
    /// What the connection's client may make Larder reach (``RequestRoute/limited(to:)``): a hit
    /// for an address of the box's own it may not reach is left to the ordinary path, which refuses it.
    let reach: UpstreamReach?
    let log: RequestLog
    let prepared: PreparedHits

    init(
        store: Store, configuration: ProxyConfiguration, offline: OfflineSwitch, usage: UsageRecorder, smallBodies: SmallBodyCache,
        freshnessMemo: FreshnessMemo, own: RequestRoute.OwnAuthorities, rules: RequestRoute.Rules, reach: UpstreamReach?,
        log: RequestLog, prepared: PreparedHits
    ) {
        self.store = store
        self.configuration = configuration
        self.offline = offline
        self.usage = usage
        self.smallBodies = smallBodies
        self.freshnessMemo = freshnessMemo
        self.own = own
        self.rules = rules
        self.reach = reach
        self.log = log
        self.prepared = prepared
    }

    /// A complete answer: its serialised head (a small body written after it), which goes to the
    /// socket as it is, and its body otherwise.
    struct Answer {
        var head: ByteBuffer
        var body: Body?
        var close: Bool

        /// An answer's body.
        enum Body {
            /// Bytes in memory (a small one is in ``head`` instead).
            case bytes(ByteBuffer)
            /// The whole of an open body file.
            case file(StoredBodyFile)
        }
    }

    /// The largest body written in its head's buffer rather than after it.
    static let inlineBodyLimit = 4096

    /// Request headers that need the ordinary path (cache directives, conditionals, ranges, bodies).
    private static let ordinaryPathHeaders: [String] = [
        "cache-control", "pragma", "range", "if-range", "if-none-match", "if-modified-since", "if-match",
        "if-unmodified-since", "content-length", "transfer-encoding", "upgrade",
    ]

    /// The answer for `head`, or nil when it must go the ordinary way.
    ///
    /// - Parameter tunnel: the origin of the intercepted `CONNECT` tunnel `head` was read in (its
    ///   targets are origin-form); nil for a request to the proxy itself.
    func answer(_ head: HTTPRequestHead, tunnel: TunnelOrigin? = nil, allocator: ByteBufferAllocator) -> Answer? {
        let started = ContinuousClock.now
        // Matched by case: NIO's `==` on methods compares their names as strings.
        let isHead: Bool
        switch head.method {
        case .GET: isHead = false
        case .HEAD: isHead = true
        default: return nil
        }
        guard !self.offline.isOffline else { return nil }
        let target: String
        if let tunnel {
            guard head.uri.hasPrefix("/") else { return nil }
            target = tunnel.base + head.uri
        } else {
            guard head.uri.hasPrefix("http") else { return nil }
            target = head.uri
        }
        // One pass over the request's fields, each compared by length first (NIO's
        // `contains(name:)` for each of the names walked them all eleven times).
        for (name, _) in head.headers where Self.ordinaryPathHeaders.contains(where: { Self.sameName(name, $0) }) {
            return nil
        }
        guard let hit = self.preparedHit(for: head, target: target, tunnel: tunnel) else { return nil }
        if !hit.contentEncoding.isEmpty {
            guard EncodingNegotiation.plan(contentEncoding: hit.contentEncoding, request: head.headers) == .asIs else { return nil }
        }
        let now = self.configuration.now()
        // The ordinary path's decision; anything but an answer from the cache goes that way.
        guard
            case .answerFromCache(let detail) = CacheTransaction.hitDecision(
                hit.context, stored: hit.freshness, precached: hit.precached, routed: false, now: now)
        else { return nil }
        var body: Answer.Body?
        if !isHead {
            switch hit.body {
            case .memory(let bytes):
                body = .bytes(bytes)
            case .file(let path, let size):
                // A file evicted meanwhile, or not its indexed size, goes the ordinary way, which reports it.
                guard let file = StoredBodyFile.open(path, size: size) else { return nil }
                body = .file(file)
            }
        }
        let (age, cacheStatus) = self.usage.answered(hit.key, freshness: hit.freshness, now: now, detail: detail)
        let close = !head.isKeepAlive

        // A small body goes in the head's buffer: one write through the pipeline and one iovec,
        // for a copy of at most `inlineBodyLimit` bytes.
        var inlineBody: ByteBuffer?
        if case .bytes(let bytes) = body, bytes.readableBytes <= Self.inlineBodyLimit {
            inlineBody = bytes
            body = nil
        }
        var bytes = allocator.buffer(capacity: hit.headerBlock.readableBytes + 256 + (inlineBody?.readableBytes ?? 0))
        if head.version == .http1_1 {
            bytes.writeStaticString("HTTP/1.1 200 OK\r\n")
        } else {
            bytes.writeString("HTTP/\(head.version.major).\(head.version.minor) 200 OK\r\n")
        }
        bytes.writeImmutableBuffer(hit.headerBlock)
        let cacheStatusValue = cacheStatus.description
        ProxyAnswerFields.forEach(age: age, cacheStatus: cacheStatusValue, close: close) { name, value in
            Self.writeHeaderLine(name: name, value: value, to: &bytes)
        }
        bytes.writeStaticString("\r\n")
        if let inlineBody {
            bytes.writeImmutableBuffer(inlineBody)
        }
        self.log.record(head, target: target, status: 200, cacheStatus: cacheStatus, cacheStatusValue: cacheStatusValue, since: started)
        return Answer(head: bytes, body: body, close: close)
    }

    /// The prepared hit for the request's absolute `target`: the one kept while it holds, else one
    /// made now from what the store remembers, when the target qualifies.
    private func preparedHit(for head: HTTPRequestHead, target: String, tunnel: TunnelOrigin?) -> PreparedHits.Hit? {
        if let hit = self.prepared.hit(for: target), self.store.holds(hit.validity) {
            let reachable = self.reach?.mayName(host: hit.host, port: hit.port) ?? true
            return self.own.matches(host: hit.host, port: hit.port) || !reachable ? nil : hit
        }
        let route =
            (tunnel.map { RequestRoute.classifyInTunnel(head, scheme: $0.scheme, host: $0.host, port: $0.port, rules: self.rules) }
            ?? RequestRoute.classify(head, own: self.own, rules: self.rules)).limited(to: self.reach)
        guard case .forward(let url) = route else { return nil }
        let key = CacheKey(url: url, filter: self.configuration.queryFilter)
        // A health check goes the ordinary way, which does not answer it from the cache while its
        // origin is backing off (docs/SERVING.md, "Health checks"); online the answer is the same.
        guard self.configuration.route(for: key)?.changesOnlineAnswers != true, !self.configuration.healthChecks.matches(url),
            let lookup = self.store.rememberedLookup(of: key),
            lookup.entries.count == 1, let entry = lookup.entries.first, entry.isSelectedForEveryRequest,
            entry.status == 200
        else { return nil }
        // Bodies too large to keep in memory go from their files by `sendfile` (4 MiB hits: 1.2 to
        // 1.7 times the requests/s of reading them through the thread pool). Smaller ones are
        // faster from memory: at 64 KiB, opening the file for each answer cost a quarter of them.
        let body: PreparedHits.Body
        if entry.bodySize > self.smallBodies.maximumBodySize {
            body = .file(path: entry.bodyPath, size: entry.bodySize)
        } else if let bytes = self.smallBodies.body(hash: entry.bodyHash), Int64(bytes.readableBytes) == entry.bodySize {
            body = .memory(bytes)
        } else {
            return nil
        }

        // A declared GET's answer is the user's (docs/SERVING.md, "Declared answers are the
        // user's"): whether a request may have it, and with which fields, the ordinary path decides
        // for each request (`ProxyConfiguration.access(to:headers:client:now:)`), so its key goes
        // that way whatever its strategy.
        let now = self.configuration.now()
        guard self.configuration.declaredGet(key, now: now) == nil else { return nil }
        // The ordinary path's strategy and decision (a route that sets a strategy kept this request
        // off this path); prepared only while that decision answers from the cache, and every
        // answer decides again.
        let strategy = CacheTransaction.strategy(
            url: url, candidate: entry, routeStrategy: nil, keyed: false, mayUseStore: true, declaredGet: false)
        let context = CacheTransaction.plainContext(strategy)
        let freshness = self.freshnessMemo.freshness(of: entry)
        guard
            case .answerFromCache = CacheTransaction.hitDecision(
                context, stored: freshness, precached: entry.kind == .precached, routed: false, now: now)
        else { return nil }
        // The ordinary path's plan for the plainest request (a keep-alive GET with no conditional
        // or range), kept serialised up to the per-request headers: one plan, so the same bytes.
        let plainGet = StoredAnswer.Request(
            isHead: false, headers: [HeaderField(name: "Accept-Encoding", value: "*")], keepAlive: true, supportsChunked: true)
        guard let plan = StoredAnswer.plan(entry.storedForAnswer, request: plainGet, age: 0, cacheStatus: .hit()),
            plan.status == 200, plan.body == .bytes(0..<entry.bodySize)
        else { return nil }
        var block = ByteBuffer()
        Self.writeHeaderLines(plan.storedPart, to: &block)
        let hit = PreparedHits.Hit(
            host: url.host,
            port: url.effectivePort,
            key: entry.key,
            headerBlock: block,
            body: body,
            contentEncoding: entry.headers["content-encoding"],
            freshness: freshness,
            context: context,
            precached: entry.kind == .precached,
            validity: lookup.validity
        )
        self.prepared.insert(hit, for: target)
        return hit
    }

    /// Whether `name` is `lowercased`, ignoring ASCII case.
    private static func sameName(_ name: String, _ lowercased: String) -> Bool {
        name.utf8.count == lowercased.utf8.count && name.utf8.elementsEqual(lowercased.utf8) { asciiLowercased($0) == $1 }
    }

    /// Writes `name: value\r\n` for each field, as NIO's response encoder does.
    static func writeHeaderLines(_ fields: [HeaderField], to buffer: inout ByteBuffer) {
        for field in fields {
            Self.writeHeaderLine(name: field.name, value: field.value, to: &buffer)
        }
    }

    /// Writes `name: value\r\n`.
    private static func writeHeaderLine(name: String, value: String, to buffer: inout ByteBuffer) {
        buffer.writeString(name)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }
}
