import Foundation
import LarderHTTP
import LarderStore
import Testing

/// Series records: summaries by the series' own today, and what keeps or drops their entries.
@Suite("Store: series records")
struct SeriesRecordTests {
    static func day(_ text: String) throws -> CalendarDay {
        try #require(CalendarDay(parsing: text))
    }

    static func record(zone: String = "Pacific/Auckland") -> SeriesRecord {
        SeriesRecord(
            location: "https://w.example/p/puzzles.json", line: "series https://w.example/p/puzzles.json tz=\(zone)", kind: "manifest",
            timeZone: zone, manifestKey: try? cacheKey("https://w.example/p/puzzles.json"),
            lastRun: Date(timeIntervalSince1970: 1_761_478_200))
    }

    static func days(_ states: [(String, SeriesDayRecord.State)]) throws -> [SeriesDayRecord] {
        try states.map { text, state in
            let url = "https://w.example/p/\(text).bin"
            return SeriesDayRecord(
                day: try Self.day(text), key: try cacheKey(url), url: url, state: state,
                reason: state == .missing ? "answered HTTP 404" : nil)
        }
    }

    @Test("today is the series' zone's day at the moment asked; a purged day no longer counts as cached")
    func summaries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            for text in ["2025-10-25", "2025-10-26", "2025-10-27"] {
                try await store.put(Array(text.utf8), at: "https://w.example/p/\(text).bin", kind: .precached)
            }
            try await store.saveSeries(
                Self.record(),
                days: try Self.days([
                    ("2025-10-24", .missing), ("2025-10-25", .cached), ("2025-10-26", .cached), ("2025-10-27", .cached),
                    ("2025-10-28", .planned),
                ]))
            // 2025-10-26 11:30 UTC is already the 27th in Auckland.
            let now = Date(timeIntervalSince1970: 1_761_478_200)
            let summary = try #require(try await store.seriesSummaries(at: now).first)
            #expect(summary.today == (try Self.day("2025-10-27")))
            #expect(summary.todayReady)
            #expect((summary.pastDays, summary.pastCached) == (3, 2))
            #expect((summary.futureDays, summary.futureCached) == (1, 0))
            #expect(summary.newestCached == (try Self.day("2025-10-27")))
            #expect(summary.missing == 1)

            _ = try await store.purgeEntry(try cacheKey("https://w.example/p/2025-10-27.bin"))
            let purged = try #require(try await store.seriesSummaries(at: now).first)
            #expect(!purged.todayReady)
            #expect(purged.newestCached == (try Self.day("2025-10-26")))
        }
    }

    @Test("pruning keeps the entries a series lists and its manifest; removing everything forgets the series")
    func pruneAndRemoveAll() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let dayURL = "https://w.example/p/2025-10-26.bin"
            try await store.put(Array("day".utf8), at: dayURL, kind: .precached)
            try await store.put(Array("{}".utf8), at: "https://w.example/p/puzzles.json", kind: .precached)
            try await store.saveSeries(Self.record(), days: try Self.days([("2025-10-26", .cached)]))
            let removed = try await store.pruneUnlisted([try cacheKey(dayURL), try cacheKey("https://w.example/p/puzzles.json")])
            #expect(removed.isEmpty)

            _ = try await store.removeAllEntries()
            #expect(try await store.series().isEmpty)
            #expect(try await store.seriesDays(location: Self.record().location).isEmpty)
        }
    }

    @Test("removing a series forgets it and removes its days' entries, except those a game also lists")
    func removeSeries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            for text in ["2025-10-25", "2025-10-26"] {
                try await store.put(Array(text.utf8), at: "https://w.example/p/\(text).bin", kind: .precached)
            }
            try await store.put(Array("{}".utf8), at: "https://w.example/p/puzzles.json", kind: .precached)
            try await store.saveSeries(Self.record(), days: try Self.days([("2025-10-25", .cached), ("2025-10-26", .cached)]))
            _ = try await store.saveGame(
                GameRecord(
                    slug: "g", root: "https://w.example/g", manifestURL: "https://w.example/g/offline.meta.json", displayName: nil,
                    state: .ready, filesListed: 1, filesCached: 1, bytes: 10, lastRun: Date(), lastError: nil, manifestRevision: nil,
                    listOrder: 0),
                files: [
                    GameFileRecord(
                        key: try cacheKey("https://w.example/p/2025-10-25.bin"), url: "https://w.example/p/2025-10-25.bin", state: .cached)
                ])

            #expect(try await store.removeSeries(location: "https://nowhere.example/p.json") == nil)
            #expect(try await store.removeSeries(location: Self.record().location) == 2)
            #expect(try await store.series().isEmpty)
            #expect(try await store.seriesDays(location: Self.record().location).isEmpty)
            #expect(try await store.entry(for: try cacheKey("https://w.example/p/2025-10-25.bin")) != nil, "a game lists it")
            #expect(try await store.entry(for: try cacheKey("https://w.example/p/2025-10-26.bin")) == nil)
            #expect(try await store.entry(for: try cacheKey("https://w.example/p/puzzles.json")) == nil)
        }
    }
}
