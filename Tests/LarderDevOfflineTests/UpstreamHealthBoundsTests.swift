import Foundation
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

/// A page can make the proxy try any number of origins (an `<img>` per `http://127.X.Y.Z:9/`): the
/// health registry, /dev/offline and `/metrics` stay bounded whatever it sends (docs/SERVING.md,
/// "Bounds").
@Suite("Upstream health: bounded under many origins")
struct UpstreamHealthBoundsTests {
    /// Records one failure for each of `count` loopback origins, as 20,000 `<img>` tags would.
    private func flood(_ health: UpstreamHealthRegistry, count: Int, from first: Int = 0) {
        for index in first..<(first + count) {
            health.recordConnectFailure(
                origin: "http://127.\(index / 65_536 % 256).\(index / 256 % 256).\(index % 256):9", description: "connection refused")
        }
    }

    @Test("20,000 origins: the registry keeps a few thousand, a backing-off origin among them, and reports list 100")
    func registry() {
        let health = UpstreamHealthRegistry(policy: .init(initialWindow: 3600, maximumWindow: 3600), now: { Date() })
        health.recordConnectFailure(origin: "https://down.example", description: "connection refused")
        health.recordConnectFailure(origin: "https://down.example", description: "connection refused")
        self.flood(health, count: 20_000)
        let kept = health.snapshot()
        #expect(kept.count == UpstreamHealthRegistry.capacity)
        #expect(kept["https://down.example"]?.shouldAttempt(now: Date()) == false, "an origin backing off outlasts the others")
        #expect(kept["http://127.0.78.31:9"] != nil, "the most recent origin is kept")
        #expect(kept["http://127.0.0.0:9"] == nil, "the oldest is forgotten")
        let reported = health.reported()
        #expect(reported.count == UpstreamHealthRegistry.reportLimit)
        #expect(reported.first?.origin == "http://127.0.78.31:9", "failing first, the most recent first")
    }

    @Test("20,000 origins: /dev/offline.json lists 100 upstreams and /metrics labels at most 100 origins, scrape after scrape")
    func reports() async throws {
        let fixture = try DevOfflineFixture()
        self.flood(fixture.health, count: 20_000)
        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        #expect((report["upstream"] as? [Any])?.count == UpstreamHealthRegistry.reportLimit)

        let perOrigin = { (text: String) in text.split(separator: "\n").filter { $0.contains("origin=\"") } }
        let first = perOrigin(await fixture.get("/metrics").body)
        #expect(first.count == 2 * UpstreamHealthRegistry.reportLimit)
        // Other origins come: the series of those no longer listed go.
        self.flood(fixture.health, count: 500, from: 20_000)
        let second = perOrigin(await fixture.get("/metrics").body)
        #expect(second.count == 2 * UpstreamHealthRegistry.reportLimit)
        #expect(second.contains { $0.contains("127.0.80.19:9") })
        #expect(!second.contains { $0.contains("127.0.78.31:9") })
    }
}
