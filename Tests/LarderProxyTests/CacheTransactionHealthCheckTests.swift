import Foundation
import LarderHTTP
import NIOHTTP1
import Testing

@testable import LarderProxy

/// A health check is never answered from the cache while its origin cannot answer
/// (docs/SERVING.md, "Health checks"); online nothing changes.
@Suite("Cache transaction: health checks stay honest")
struct CacheTransactionHealthCheckTests {
    typealias Step = CacheTransactionTests.Step
    static let now = CacheTransactionTests.now
    static let url = try! HTTPURL(parsing: "http://site.example/api/healthz")

    /// The transaction of `CacheTransactionTests` for the health check URL, marked (or not) as one.
    static func transaction(
        _ candidate: CacheTransaction.Candidate?, healthCheck: Bool = true, offline: Bool = false, backingOff: Bool = false
    ) -> CacheTransaction {
        var start = CacheTransactionTests.transaction(candidate, url: Self.url, offline: offline, backingOff: backingOff).start
        start.healthCheck = healthCheck
        return CacheTransaction(start)
    }

    static func copy(_ headers: [(String, String)]) -> CacheTransaction.Candidate {
        CacheTransactionTests.entry(headers, url: Self.url)
    }

    /// The status, what the page says of the copy, and `Cache-Status` of an error answer; nil for any other step.
    static func page(_ step: Step) -> (status: Int, unusable: String?, cacheStatus: String)? {
        guard case .page(.disconnected(let status, _, let unusable), let cacheStatus) = step else { return nil }
        return (status, unusable, cacheStatus)
    }

    @Test("offline, unreachable or backing off: the error answer with +health-check, where any other URL gets its copy")
    func disconnected() throws {
        let noCache = Self.copy([("Cache-Control", "no-cache")])
        let fresh = Self.copy([("Cache-Control", "max-age=600")])
        var offline = Self.transaction(noCache, offline: true)
        let offlinePage = try #require(Self.page(Step(offline.begin())))
        #expect(offlinePage.status == 504)
        #expect(offlinePage.cacheStatus == "larder; fwd=stale; detail=offline+health-check")
        #expect(offlinePage.unusable == Self.unusable)
        var other = Self.transaction(noCache, healthCheck: false, offline: true)
        #expect(Step(other.begin()) == .stored(detail: "offline+relaxed-no-cache", cacheStatus: nil, refresh: false, disconnected: true))

        var unreachable = Self.transaction(noCache)
        _ = unreachable.begin()
        let failed = try #require(Self.page(Step(unreachable.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))))
        #expect(failed.status == 502)
        #expect(failed.cacheStatus == "larder; fwd=stale; detail=upstream-unreachable+health-check")

        // A fresh copy is not the server's health while it is backing off: the probe asks, or the error answer.
        var backingOff = Self.transaction(fresh, backingOff: true)
        #expect(Step(backingOff.begin()) == .mayProbe)
        let notTried = try #require(Self.page(Step(backingOff.probeAnswered(admitted: false, now: Self.now))))
        #expect(notTried.cacheStatus == "larder; fwd=stale; detail=upstream-backoff+health-check")
        var otherBackingOff = Self.transaction(fresh, healthCheck: false, backingOff: true)
        #expect(Step(otherBackingOff.begin()) == .stored(detail: nil, cacheStatus: nil, refresh: false), "another URL's fresh copy answers")
        var online = Self.transaction(fresh)
        #expect(Step(online.begin()) == .stored(detail: nil, cacheStatus: nil, refresh: false), "online, a fresh copy answers as ever")
    }

    @Test("a 5xx from the health endpoint is relayed, never replaced by the stored copy (stale-if-error)")
    func serverError() {
        let copy = Self.copy([("Cache-Control", "max-age=0, stale-if-error=600")])
        var health = Self.transaction(copy)
        _ = health.begin()
        let step = Step(health.upstreamAnswered(status: 503, headers: [], requestTime: Self.now, now: Self.now))
        if case .relay = step {} else { Issue.record("expected the 503 relayed, got \(step)") }
    }

    @Test("a declared answer withheld from the request: its error answer says +declared-withheld")
    func declaredWithheld() throws {
        var start = CacheTransactionTests.transaction(nil, url: Self.url, offline: true).start
        start.declaredWithheld = true
        var withheld = CacheTransaction(start)
        #expect(try #require(Self.page(Step(withheld.begin()))).cacheStatus == "larder; fwd=uri-miss; detail=offline+declared-withheld")
        var plain = CacheTransactionTests.transaction(nil, url: Self.url, offline: true)
        #expect(try #require(Self.page(Step(plain.begin()))).cacheStatus == "larder; fwd=uri-miss; detail=offline")
    }

    static let unusable =
        "This is a health check: Larder never answers it from the cache while the site cannot answer, so the app hears that its server is down."
}
