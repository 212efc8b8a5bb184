import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// Per-route strategies from `--config`, each against the test origin.
@Suite("End to end: strategies from the config file")
struct StrategyTests {
    private static let config = """
        {
          "routes": [
            { "match": "/cache-first/**", "strategy": "cache-first" },
            { "match": "/aged/**", "strategy": "cache-first", "maxAgeSeconds": 10 },
            { "match": "/network-first/**", "strategy": "network-first", "networkTimeoutSeconds": 0.5 },
            { "regex": "/swr/[a-z]+$", "strategy": "stale-while-revalidate" },
            { "match": "/network-only/**", "strategy": "network-only" },
            { "match": "/cache-only/**", "strategy": "cache-only" }
          ]
        }
        """

    /// Runs `body` with a proxy started on the config above.
    private func withConfiguredProxy(_ body: (LarderProcess, TestOrigin) async throws -> Void) async throws {
        let directory = LarderProcess.temporaryDirectory("larder-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/larder.json"
        try Self.config.write(toFile: path, atomically: true, encoding: .utf8)
        try await withProxy(arguments: ["--config", path], body)
    }

    /// Waits until the origin has seen `count` requests for `path` (a background fetch).
    private func waitForRequests(_ origin: TestOrigin, _ path: String, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while origin.requestCount(path) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("cache-first answers any stored copy, even one its response calls stale; maxAgeSeconds bounds it")
    func cacheFirst() async throws {
        try await self.withConfiguredProxy { larder, origin in
            origin.setRoute("/cache-first/a.js", .text("a", headers: [("Cache-Control", "max-age=0")]))
            origin.setRoute("/aged/b.js", .text("b", headers: [("Cache-Control", "max-age=3600")]))
            for path in ["/cache-first/a.js", "/aged/b.js"] {
                _ = try await Curl.run(origin.url(path), proxy: larder.proxyURL)
            }
            // The copy arrived before this; maxAgeSeconds is 10, long enough that a loaded machine
            // still asks again while it is young.
            let fetchedAt = ContinuousClock.now
            await entriesStored(in: larder, count: 2)
            let hit = try await Curl.run(
                origin.url("/cache-first/a.js"), proxy: larder.proxyURL, arguments: ["-H", "Cache-Control: no-cache"])
            #expect(hit.header("cache-status")?.contains("detail=cache-first") == true)
            #expect(origin.requestCount("/cache-first/a.js") == 1)
            let young = try await Curl.run(origin.url("/aged/b.js"), proxy: larder.proxyURL)
            #expect(young.header("cache-status")?.contains("hit") == true)
            try await Task.sleep(until: fetchedAt + .milliseconds(10_200))
            let old = try await Curl.run(origin.url("/aged/b.js"), proxy: larder.proxyURL)
            #expect(old.header("cache-status")?.contains("fwd=stale") == true, "\(old.header("cache-status") ?? "")")
            #expect(origin.requestCount("/aged/b.js") == 2)
        }
    }

    @Test("network-first answers from the cache when the network is slower than its timeout, and stores the late answer")
    func networkFirstTimeout() async throws {
        try await self.withConfiguredProxy { larder, origin in
            origin.setRoute("/network-first/today.json", .text("v1", headers: [("Cache-Control", "max-age=3600")]))
            #expect(try await Curl.run(origin.url("/network-first/today.json"), proxy: larder.proxyURL).text == "v1")
            await entriesStored(in: larder)
            // Fresh, but network-first still asks the network; it answers slowly with v2.
            origin.setRoute(
                "/network-first/today.json", .text("v2", headers: [("Cache-Control", "max-age=3600")], faults: [.delayHead(.seconds(2))]))
            let timely = try await Curl.run(origin.url("/network-first/today.json"), proxy: larder.proxyURL)
            #expect(timely.text == "v1")
            #expect(timely.header("cache-status")?.contains("detail=network-timeout") == true)
            // The late v2 is stored: once it has arrived, the origin is stopped and the cache has v2.
            try await Task.sleep(for: .milliseconds(2500))
            try await origin.stop()
            let later = try await Curl.run(origin.url("/network-first/today.json"), proxy: larder.proxyURL)
            #expect(later.text == "v2")
            #expect(later.header("cache-status")?.contains("detail=upstream-unreachable") == true)
        }
    }

    @Test("stale-while-revalidate answers the stored copy at once and refreshes it in the background")
    func staleWhileRevalidate() async throws {
        try await self.withConfiguredProxy { larder, origin in
            origin.setRoute("/swr/news", .text("v1", headers: [("Cache-Control", "max-age=3600")]))
            _ = try await Curl.run(origin.url("/swr/news"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            origin.setRoute("/swr/news", .text("v2", headers: [("Cache-Control", "max-age=3600")]))
            let first = try await Curl.run(origin.url("/swr/news"), proxy: larder.proxyURL)
            #expect(first.text == "v1")
            #expect(first.header("cache-status")?.contains("detail=stale-while-revalidate") == true)
            try await self.waitForRequests(origin, "/swr/news", count: 2)
            await entriesStored(in: larder, count: 2)
            let second = try await Curl.run(origin.url("/swr/news"), proxy: larder.proxyURL)
            #expect(second.text == "v2")
        }
    }

    @Test("network-only never stores nor answers from the cache; cache-only never asks the network")
    func networkOnlyAndCacheOnly() async throws {
        try await self.withConfiguredProxy { larder, origin in
            origin.setRoute("/network-only/score", .text("42", headers: [("Cache-Control", "max-age=3600")]))
            origin.setRoute("/cache-only/level.json", .text("{}", headers: [("Cache-Control", "max-age=3600")]))
            for _ in 0..<2 {
                let score = try await Curl.run(origin.url("/network-only/score"), proxy: larder.proxyURL)
                #expect(score.text == "42")
                #expect(score.header("cache-status")?.contains("not-stored-network-only") == true)
            }
            #expect(origin.requestCount("/network-only/score") == 2)
            let level = try await Curl.run(origin.url("/cache-only/level.json"), proxy: larder.proxyURL)
            #expect(level.status == 504)
            #expect(level.header("cache-status")?.contains("detail=cache-only") == true)
            #expect(origin.requestCount("/cache-only/level.json") == 0)
            try await origin.stop()
            let offlineScore = try await Curl.run(origin.url("/network-only/score"), proxy: larder.proxyURL)
            #expect(offlineScore.status == 502)
        }
    }
}
