import LarderHTTP
import LarderIntrospection
import Testing

@testable import LarderProxy

@Suite("ProxyStatistics.Outcome")
struct RequestOutcomeTests {
    @Test(
        "answers are counted by their status and Cache-Status",
        arguments: [
            (200, CacheStatus.hit(), ProxyStatistics.Outcome.hit),
            (200, CacheStatus.hit(detail: "upstream-unreachable"), .stale),
            (200, CacheStatus.hit(detail: "upstream-503"), .stale),
            (200, CacheStatus.forward(.uriMiss, status: 200, stored: true), .miss),
            (404, CacheStatus.forward(.uriMiss, status: 404), .miss),
            (504, CacheStatus.forward(.uriMiss, detail: "offline"), .offlineMiss),
            (502, CacheStatus.forward(.uriMiss, detail: "upstream-backoff"), .offlineMiss),
            (504, CacheStatus.forward(.stale, detail: "network-timeout"), .offlineMiss),
            (504, CacheStatus.forward(.varyMiss, detail: "upstream-unreachable"), .offlineMiss),
            (502, CacheStatus.forward(.method, detail: "upstream-unreachable"), .offlineMiss),
            (504, CacheStatus.forward(.uriMiss, detail: "cache-only"), .error),
            (504, CacheStatus.forward(.uriMiss, detail: "only-if-cached"), .error),
            (200, CacheStatus.forward(.bypass, detail: "tunnel"), .bypass),
            (502, CacheStatus.forward(.bypass, detail: "tunnel"), .error),
            (101, CacheStatus.forward(.bypass, status: 101, detail: "websocket"), .bypass),
            (403, CacheStatus.forward(.bypass, status: 403, detail: "websocket"), .bypass),
            (502, CacheStatus.forward(.bypass, detail: "websocket"), .error),
            (502, CacheStatus.forward(.bypass, detail: "upstream-unreachable+websocket"), .offlineMiss),
            (502, CacheStatus.forward(.bypass, detail: "upstream-backoff+websocket"), .offlineMiss),
            (504, CacheStatus.forward(.bypass, detail: "offline+websocket"), .offlineMiss),
            (504, CacheStatus.forward(.bypass, detail: "offline"), .error),
            (502, CacheStatus.forward(.method, detail: "upstream-unreachable+write-not-queued-cross-site"), .offlineMiss),
        ]
    )
    func classify(status: Int, cacheStatus: CacheStatus, outcome: ProxyStatistics.Outcome) {
        #expect(ProxyStatistics.Outcome.classify(status: status, cacheStatus: cacheStatus) == outcome)
    }

    @Test("Larder's own pages: an error status is an error, anything else is not a cache matter")
    func ownPages() {
        #expect(ProxyStatistics.Outcome.classify(status: 200, cacheStatus: nil) == .bypass)
        #expect(ProxyStatistics.Outcome.classify(status: 403, cacheStatus: nil) == .error)
    }
}
