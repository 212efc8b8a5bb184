import Foundation
import LarderHTTP
import LarderStore
import Synchronization
import Testing

@testable import LarderPrecache

/// Series through the runner: tiers, the first-tier hook, missing days, the store's records.
@Suite("Precache runner: series and tiers")
struct SeriesRunnerTests {
    /// 2025-10-26 11:30 UTC.
    static let now = Date(timeIntervalSince1970: 1_761_478_200)

    private static func withStore<T>(_ body: (Store) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("series-\(UUID().uuidString)").path
        let store = try Store(directory: directory)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return try await body(store)
    }

    private static func options(concurrency: Int = 8) -> PrecacheOptions {
        var options = PrecacheOptions()
        options.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(1))
        options.concurrency = concurrency
        options.clock = { Self.now }
        return options
    }

    @Test("a bare .json line whose manifest is WordErase's available_puzzles runs as a series: today first")
    func bareSeriesManifest() async throws {
        let upstream = FakeUpstream { url, _ in
            switch url {
            case "http://w.example/p/puzzles.json":
                return .ok(
                    #"{"last_updated": "2025-10-26", "available_puzzles": ["2025-10-24.bin", "2025-10-25.bin", "2025-10-26.bin"]}"#,
                    contentType: "application/json")
            case _ where url.hasSuffix("metadata.json"): return .status(404)
            default: return .ok(url)
            }
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.options(concurrency: 1))
            let report = await runner.run(GamesList.parse("http://w.example/p/puzzles.json\n", source: "t"))
            let days = upstream.requestedURLs.filter { $0.hasSuffix(".bin") }
            #expect(
                days == ["http://w.example/p/2025-10-26.bin", "http://w.example/p/2025-10-25.bin", "http://w.example/p/2025-10-24.bin"])
            #expect(report.games.isEmpty)
            #expect(report.series.first?.todayReady == true)
            #expect(report.succeeded)
        }
    }

    @Test("tier 1 (pages, today, the hook), then the games, then the backlog; a 404 day is missing, the rest cached")
    func tiers() async throws {
        let hookRan = Mutex<[String]>([])
        let upstream = FakeUpstream { url, _ in
            switch url {
            case "http://g.example/a/offline.meta.json": return .ok(#"{"files": ["a/1.js", "a/2.js"]}"#, contentType: "application/json")
            case _ where url.hasSuffix("metadata.json"): return .status(404)
            case "http://s.example/2025-10-24.bin": return .status(404)
            default: return .ok(url)
            }
        }
        try await Self.withStore { store in
            // One download at a time: the order asked is the order planned (with 8, two downloads
            // started together can reach the fake origin in either order on a busy machine).
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.options(concurrency: 1))
            let list = GamesList.parse(
                """
                http://g.example/a
                series http://s.example/{date}.bin tz=UTC past=3 future=2
                page http://g.example/
                """, source: "t")
            let report = await runner.run(
                list,
                firstTier: {
                    hookRan.withLock { $0 = upstream.requestedURLs }
                })
            let order = upstream.requestedURLs.filter { !$0.hasSuffix(".json") }
            #expect(
                Array(order.prefix(2)).sorted() == ["http://g.example/", "http://s.example/2025-10-26.bin"], "tier 1 first: \(order)")
            #expect(Array(order.dropFirst(2).prefix(2)).sorted() == ["http://g.example/a/1.js", "http://g.example/a/2.js"], "\(order)")
            #expect(
                Array(order.dropFirst(4)) == [
                    "http://s.example/2025-10-25.bin", "http://s.example/2025-10-24.bin", "http://s.example/2025-10-23.bin",
                    "http://s.example/2025-10-27.bin", "http://s.example/2025-10-28.bin",
                ], "the backlog by recency, then the runway; order: \(order)")
            #expect(hookRan.withLock { $0 }.allSatisfy { !$0.hasSuffix(".js") }, "the hook runs in tier 1, before any game file")

            let series = try #require(report.series.first)
            #expect(series.today == "2025-10-26")
            #expect(series.todayReady)
            #expect(series.daysListed == 6)
            #expect(series.daysCached == 5)
            #expect(series.pastDays == 3)
            #expect(series.pastCached == 2)
            #expect(series.newestCached == "2025-10-28")
            #expect(series.missing == [.init(date: "2025-10-24", url: "http://s.example/2025-10-24.bin", reason: "answered HTTP 404")])
            #expect(!report.succeeded, "a missing day is a partial failure")
            #expect(report.games.first?.state == .ready)

            let summaries = try await store.seriesSummaries(at: Self.now)
            #expect(summaries.count == 1)
            let summary = try #require(summaries.first)
            #expect(summary.record.line == "series http://s.example/{date}.bin tz=UTC past=3 future=2")
            #expect(summary.record.timeZone == "UTC")
            #expect(summary.todayReady)
            #expect(summary.pastDays == 3)
            #expect(summary.pastCached == 2)
            #expect(summary.missing == 1)
            #expect(summary.newestCached?.description == "2025-10-28")
            // The next day, yesterday's runway file is today's: ready without a run.
            let tomorrow = try #require(try await store.seriesSummaries(at: Self.now.addingTimeInterval(86_400)).first)
            #expect(tomorrow.today.description == "2025-10-27")
            #expect(tomorrow.todayReady)

            // A second run fetches only the missing day (and nothing cached again).
            let before = upstream.requestedURLs.count
            let again = await runner.run(list)
            let second = upstream.requestedURLs.dropFirst(before).filter { $0.contains("s.example") }
            #expect(second == ["http://s.example/2025-10-24.bin"])
            #expect(again.series.first?.daysCached == 5)
        }
    }

    @Test("a manifest series is fetched with the game manifests and stored; a failed manifest keeps the recorded days")
    func manifestSeries() async throws {
        let manifestFails = Mutex(false)
        let upstream = FakeUpstream { url, _ in
            if url == "http://w.example/p/puzzles.json" {
                return manifestFails.withLock { $0 }
                    ? .status(500)
                    : .ok(
                        #"{"last_updated": "x", "available_puzzles": ["2025-10-25.bin", "2025-10-26.bin"]}"#,
                        contentType: "application/json")
            }
            return .ok(url)
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.options())
            let list = GamesList.parse("series http://w.example/p/puzzles.json tz=UTC\n", source: "t")
            let report = await runner.run(list)
            #expect(report.succeeded)
            #expect(report.series.first?.daysCached == 2)
            let manifest = try await store.entry(for: try CacheKey(url: "http://w.example/p/puzzles.json"))
            #expect(manifest?.kind == .precached)

            manifestFails.withLock { $0 = true }
            let failed = await runner.run(list)
            #expect(!failed.succeeded)
            #expect(failed.series.first?.error?.contains("answered HTTP 500") == true)
            let summary = try #require(try await store.seriesSummaries(at: Self.now).first)
            #expect(summary.todayReady, "what was cached is still listed")
            #expect(summary.record.lastError?.contains("500") == true)
        }
    }
}
