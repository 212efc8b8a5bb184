import Foundation
import LarderStore
import NIOCore
import NIOHTTP1

/// Answers the plainest cache hits on the connection's event loop, without a task: a GET or HEAD
/// of an absolute URL, with no conditional, range or cache directive, for a response Larder holds
/// in memory (its lookup and its small body) that the default strategy serves without the network.
/// Everything else, and anything in doubt, goes the ordinary way; answers are the same either way.
struct ImmediateHits: Sendable {
    let proxy: ForwardProxy
    let own: RequestRoute.OwnAuthorities
    let rules: RequestRoute.Rules
    let log: RequestLog

    /// A complete answer.
    struct Answer {
        var version: HTTPVersion
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer?
        var close: Bool
    }

    /// Request headers that need the ordinary path (cache directives, conditionals, ranges, bodies).
    private static let ordinaryPathHeaders: Set<String> = [
        "cache-control", "pragma", "range", "if-range", "if-none-match", "if-modified-since", "if-match",
        "if-unmodified-since", "content-length", "transfer-encoding", "upgrade",
    ]

    /// The answer for `head`, or nil when it must go the ordinary way.
    func answer(_ head: HTTPRequestHead) -> Answer? {
        guard head.method == .GET || head.method == .HEAD, head.uri.hasPrefix("http"), !self.proxy.offline.isOffline else {
            return nil
        }
        for (name, _) in head.headers where Self.ordinaryPathHeaders.contains(name.lowercased()) {
            return nil
        }
        guard case .forward(let url) = RequestRoute.classify(head, own: self.own, rules: self.rules) else { return nil }
        let key = CacheKey(url: url, filter: self.proxy.configuration.queryFilter)
        guard self.proxy.configuration.route(for: key) == nil, let variants = self.proxy.store.rememberedVariants(of: key),
            let entry = variants.first(where: { VaryKey.selects($0, for: head.headers) }),
            entry.status == 200, let body = self.proxy.smallBodies.body(hash: entry.bodyHash), Int64(body.readableBytes) == entry.bodySize
        else { return nil }

        let now = Date()
        let freshness = self.proxy.freshness(of: entry)
        let detail: String?
        switch ForwardProxy.defaultStrategy(for: url, entry: entry) {
        case .http:
            guard freshness.isFresh(now: now) else { return nil }
            detail = nil
        case .cacheFirst:
            detail = "precached"
        default:
            return nil
        }
        var headers = ForwardProxy.storedHeaders(entry, age: freshness.currentAge(now: now))
        guard EncodingNegotiation.plan(contentEncoding: headers["content-encoding"], request: head.headers) == .asIs else { return nil }

        let started = ContinuousClock.now
        let cacheStatus = CacheStatus.hit(ttl: Int(freshness.lifetime) - freshness.currentAge(now: now), detail: detail)
        self.proxy.usage.recordUse(entry.key)
        headers.replaceOrAdd(name: "accept-ranges", value: "bytes")
        headers.add(name: "content-length", value: String(entry.bodySize))
        ForwardProxy.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: !head.isKeepAlive)
        self.log.record(head, status: 200, cacheStatus: cacheStatus, since: started)
        return Answer(version: head.version, status: .ok, headers: headers, body: head.method == .HEAD ? nil : body, close: !head.isKeepAlive)
    }
}
