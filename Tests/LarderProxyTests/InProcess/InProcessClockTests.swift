import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderProxy

/// The proxy reads every time through its one clock (``ProxyConfiguration/now``): a test that
/// moves it sees answers age and origins' back-off end, with no real time passing.
@Suite("In-process proxy: the injected clock")
struct InProcessClockTests {
    static let url = "http://clock.test/app.js"
    /// Far from the machine's time, so that a time read anywhere else shows.
    static let start = Date(timeIntervalSince1970: 2_000_000_000)

    /// Waits until the proxy's store holds `url` (bodies commit just after the client's answer).
    private func stored(_ url: String, in proxy: InProcessProxy) async throws {
        for _ in 0..<100 {
            if try await proxy.store.entry(for: try CacheKey(url: url)) != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(url) was never stored")
    }

    @Test(
        "a max-age=60 answer is a hit while the clock says so, revalidated once it has moved 61 s on, then a hit again aged by the clock",
        arguments: [true, false])
    func freshnessFollowsTheClock(immediateHits: Bool) async throws {
        let clock = TestClock(Self.start)
        let upstream = ScriptedUpstream()
        upstream.script(Self.url, .init(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")], body: "ONE"))
        try await InProcessProxy.with(
            upstream: upstream,
            configure: {
                $0.now = { clock.now }
                $0.immediateHits = immediateHits
            }
        ) { proxy in
            let first = try await proxy.get(Self.url)
            #expect(first.header("cache-status") == "larder; fwd=uri-miss; fwd-status=200; stored")
            try await self.stored(Self.url, in: proxy)
            // The second answer loads the copy into memory; the third is then answered on the event
            // loop when immediate hits are on.
            for _ in 0..<2 {
                let hit = try await proxy.get(Self.url)
                #expect(hit.body == "ONE")
                #expect(hit.header("cache-status") == "larder; hit; ttl=60")
            }

            clock.advance(by: 61)
            upstream.script(Self.url, .init(status: 304, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")]))
            let revalidated = try await proxy.get(Self.url)
            #expect(revalidated.body == "ONE")
            #expect(revalidated.header("cache-status")?.hasPrefix("larder; fwd=stale; fwd-status=304") == true)
            #expect(upstream.requests(for: Self.url).count == 2)
            #expect(upstream.requests(for: Self.url).last?.headers.contains { $0.name == "If-None-Match" && $0.value == "\"v1\"" } == true)

            // Renewed at the clock's time: fresh for 60 s from there, whatever the machine's time.
            var answers: [String?] = []
            for seconds in [0, 0, 30] {
                clock.advance(by: TimeInterval(seconds))
                answers.append(try await proxy.get(Self.url).header("cache-status"))
            }
            #expect(answers == ["larder; hit; ttl=60", "larder; hit; ttl=60", "larder; hit; ttl=30"])
            #expect(upstream.requests(for: Self.url).count == 2)
        }
    }

    @Test("an origin's back-off ends when the clock passes its window, not when the machine's time does")
    func backoffFollowsTheClock() async throws {
        let clock = TestClock(Self.start)
        let url = "http://down.test/data.json"
        let upstream = ScriptedUpstream()
        upstream.script(url, .init(failure: .connectionRefused))
        try await InProcessProxy.with(upstream: upstream, configure: { $0.now = { clock.now } }) { proxy in
            // Two connect failures start a back-off; a third (the probe) doubles it to 20 s.
            for _ in 0..<3 {
                #expect(try await proxy.get(url).header("cache-status")?.contains("detail=upstream-unreachable") == true)
            }
            let waiting = try await proxy.get(url)
            #expect(waiting.status == 502)
            #expect(waiting.header("cache-status")?.contains("detail=upstream-backoff") == true)
            #expect(upstream.requests(for: url).count == 3, "no request goes out during the back-off but its probe")

            upstream.script(url, .init(headers: [("Cache-Control", "no-store")], body: "BACK"))
            clock.advance(by: 21)
            let back = try await proxy.get(url)
            #expect(back.status == 200)
            #expect(back.body == "BACK")
            #expect(proxy.server.health.snapshot()["http://down.test"]?.consecutiveFailures == 0)
        }
    }
}
