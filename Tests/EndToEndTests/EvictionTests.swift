import Foundation
import LarderHTTP
import LarderStore
import LarderTestSupport
import Testing

/// `larder serve --max-size`: runtime entries are evicted least recently used first; precached
/// entries stay.
@Suite("End to end: eviction under --max-size", .serialized)
struct EvictionEndToEndTests {
    private static let bodyLength = 100_000

    @Test("under a tiny budget the least recently used runtime entries go; precached entries survive")
    func evictsLeastRecentlyUsed() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.serveDirectory(DemoSite.root)
        for index in 0..<5 {
            origin.setRoute(
                "/r\(index).bin",
                TestResponse(
                    headers: [("Cache-Control", "max-age=600")], body: .bytes(Array(repeating: UInt8(index), count: Self.bodyLength))))
        }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 0)
        let store = try Store(directory: cache)
        defer { try? store.close() }
        let pinned = try await store.totals()
        try #require(pinned.precachedEntries > 0)

        // Room for the precached entries and three runtime bodies.
        let budget = pinned.precachedBytes + Int64(3 * Self.bodyLength)
        let larder = try await LarderProcess(serve: ["--max-size", String(budget)], cacheDirectory: cache)
        // What a request stores is committed just after its client has the answer.
        func committed(_ index: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(15)
            while try await store.entry(for: try CacheKey(url: origin.url("/r\(index).bin"))) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        for index in 0..<3 {
            #expect(
                try await Curl.run(origin.url("/r\(index).bin"), proxy: larder.proxyURL).header("cache-status")?.contains("stored") == true)
            try await committed(index)
        }
        // r0 is used again (a fresh hit, its use batched): r1 is now the least recently used, then r2.
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await Curl.run(origin.url("/r0.bin"), proxy: larder.proxyURL).status == 200)

        for index in 3..<5 {
            _ = try await Curl.run(origin.url("/r\(index).bin"), proxy: larder.proxyURL)
            try await committed(index)
            // Eviction runs in the background after the commit.
            let deadline = ContinuousClock.now + .seconds(15)
            while try await store.totals().bytes > budget, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let totals = try await store.totals()
        #expect(totals.bytes <= budget)
        #expect(totals.precachedEntries == pinned.precachedEntries, "precached entries are never evicted")
        #expect(totals.precachedBytes == pinned.precachedBytes)
        for (index, kept) in [(0, true), (1, false), (2, false), (3, true), (4, true)] {
            let entry = try await store.entry(for: try CacheKey(url: origin.url("/r\(index).bin")))
            #expect((entry != nil) == kept, "r\(index) should \(kept ? "stay" : "be evicted")")
        }
        await larder.stop()
    }

    @Test("precached entries alone over the budget: a warning, and they are kept")
    func precachedOverBudget() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 0)
        try await origin.stop()
        let larder = try await LarderProcess(serve: ["--max-size", "1KB"], cacheDirectory: cache)
        let deadline = ContinuousClock.now + .seconds(10)
        while !larder.log.contains("more than --max-size"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(larder.log.contains("more than --max-size 1000 B"))
        let asset = try await Curl.run(origin.url("/games/flipart/assets/index-s5wVp7Ny.js"), proxy: larder.proxyURL)
        #expect(asset.status == 200)
        await larder.stop()
    }

    @Test("a bad --max-size is a usage error naming the flag")
    func badSize() async throws {
        let result = try await LarderCLI.run(["serve", "--port", "0", "--max-size", "12XB"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--max-size '12XB' is not a size"))
    }
}
