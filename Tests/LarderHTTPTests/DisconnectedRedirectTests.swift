import Foundation
import Testing

@testable import LarderHTTP

/// Temporary redirects kept for disconnected use only (docs/SERVING.md, "Redirects"): stored,
/// never served while the origin answers, served when it cannot under the relaxed offline rule.
@Suite("Redirects kept for disconnected use")
struct DisconnectedRedirectTests {
    private static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private static func freshness(_ status: Int, _ headers: [String: [String]] = [:], storedAgo: TimeInterval = 0) -> ResponseFreshness {
        let received = t0.addingTimeInterval(-storedAgo)
        var headers = headers
        headers["date"] = [HTTPDate.format(received)]
        return ResponseFreshness(status: status, header: { headers[$0] ?? [] }, requestTime: received, responseTime: received)
    }

    private static func context(_ strategy: CachingStrategy = .http, request: String? = nil) -> CacheDecision.Context {
        CacheDecision.Context(
            strategy: strategy, networkTimeout: .seconds(3),
            request: RequestCacheDirectives(cacheControl: request.map { [$0] } ?? [], pragma: []))
    }

    @Test(
        "a GET's 302, 303 and 307 are stored whatever their freshness; with none, for disconnected use only",
        arguments: [
            (302, [String](), true, true),
            (303, [], true, true),
            (307, [], true, true),
            (302, ["no-cache"], true, true),
            (302, ["max-age=60"], true, false),
            (307, ["private"], true, false),
            (301, [], true, false),
            (308, [], true, false),
            (302, ["no-store"], false, true),
            (200, [], true, false),
        ]
    )
    func stored(status: Int, cacheControl: [String], storable: Bool, disconnectedOnly: Bool) {
        let result = Storability.evaluate(
            method: "GET", status: status, requestCacheControl: [], responseCacheControl: cacheControl, vary: [])
        #expect((result == .storable) == storable)
        let freshness = Self.freshness(status, ["cache-control": cacheControl])
        #expect((freshness.disconnectedOnlyRedirect != nil) == disconnectedOnly)
    }

    @Test("a 302 with Expires is not disconnected-only; a 302 to a POST is never stored")
    func expiresAndMethod() {
        #expect(Self.freshness(302, ["expires": ["Thu, 01 Jan 2099 00:00:00 GMT"]]).disconnectedOnlyRedirect == nil)
        #expect(
            Storability.evaluate(method: "POST", status: 302, requestCacheControl: [], responseCacheControl: [], vary: [])
                == .notStorable(reason: "method"))
    }

    @Test(
        "online, a disconnected-only redirect is never the answer, whatever the strategy or the request's max-stale",
        arguments: [
            (CachingStrategy.http, String?.none, CacheDecision.forward(reason: .stale, timeout: nil)),
            (.http, "max-stale", .forward(reason: .stale, timeout: nil)),
            (.cacheFirst, nil, .forward(reason: .stale, timeout: nil)),
            (.staleWhileRevalidate, nil, .forward(reason: .stale, timeout: nil)),
            (.networkFirst, nil, .forward(reason: .stale, timeout: nil)),
            (.http, "only-if-cached", .gatewayTimeout(detail: "only-if-cached")),
            // A cache-only route never asks the origin: there the origin cannot answer by config.
            (.cacheOnly, nil, .answerFromCache(detail: "cache-only")),
        ]
    )
    func online(strategy: CachingStrategy, request: String?, expected: CacheDecision) {
        let stored = Self.freshness(302)
        #expect(CacheDecision.decide(Self.context(strategy, request: request), stored: stored, now: Self.t0) == expected)
    }

    @Test("a 301, and a 302 with explicit freshness, are answered online as RFC 9111 says")
    func rfcRedirectsOnline() {
        let permanent = Self.freshness(301, ["last-modified": [HTTPDate.format(Self.t0.addingTimeInterval(-10_000))]])
        #expect(CacheDecision.decide(Self.context(), stored: permanent, now: Self.t0) == .answerFromCache(detail: nil))
        let fresh302 = Self.freshness(302, ["cache-control": ["max-age=60"]])
        #expect(CacheDecision.decide(Self.context(), stored: fresh302, now: Self.t0) == .answerFromCache(detail: nil))
    }

    @Test("when the origin cannot answer: relaxed serves it saying so, strict does not, precached always may")
    func disconnected() {
        let stored = Self.freshness(303, storedAgo: 3600)
        #expect(CacheDecision.disconnectedUse(stored, precached: false, rule: .relaxed, now: Self.t0) == .relaxed(directive: "status-303"))
        #expect(
            CacheDecision.disconnectedUse(stored, precached: false, rule: .strict, now: Self.t0) == .forbidden(directive: "status-303"))
        #expect(CacheDecision.disconnectedUse(stored, precached: true, rule: .strict, now: Self.t0) == .allowed)
        #expect(
            CacheDecision.disconnectedUse(stored, precached: false, rule: .relaxed, now: Self.t0).detail("upstream-unreachable")
                == "upstream-unreachable+relaxed-status-303")
        let fresh = Self.freshness(302, ["cache-control": ["max-age=60"]], storedAgo: 3600)
        #expect(CacheDecision.disconnectedUse(fresh, precached: false, rule: .strict, now: Self.t0) == .allowed)
    }
}
