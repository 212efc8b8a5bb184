import Foundation
import LarderHTTP
import LarderPrecache
import LarderStore
import Testing

/// The order a series' days are fetched in, and what is skipped.
@Suite("Series planner")
struct SeriesPlannerTests {
    /// 2025-10-26 11:30 UTC: already 2025-10-27 in Auckland.
    static let now = Date(timeIntervalSince1970: 1_761_478_200)

    static func series(_ line: String) throws -> SeriesSource {
        try #require(GamesList.parse(line, source: "t").series.first)
    }

    static func listing(_ names: [String], manifest: String = "https://w.example/p/puzzles.json") throws -> SeriesListing {
        let body = #"{"last_updated": "x", "available_puzzles": [\#(names.map { "\"\($0)\"" }.joined(separator: ", "))]}"#
        return try SeriesListing.parse(
            status: 200, contentType: "application/json", body: Array(body.utf8), manifestURL: try httpURL(manifest),
            allowCrossOrigin: false)
    }

    /// `count` consecutive days' names ending at `last`.
    static func names(from first: String, count: Int) throws -> [String] {
        let start = try #require(CalendarDay(parsing: first))
        return (0..<count).map { "\(start.adding(days: $0)).bin" }
    }

    static func order(_ plan: SeriesPlan) -> [String] {
        plan.days.map { "\($0.position.rawValue) \($0.day)" }
    }

    @Test("today first, then past days newest first, then future days oldest first, at most 7 ahead")
    func order() throws {
        let series = try Self.series("series https://w.example/p/puzzles.json tz=UTC")
        // Listed out of order, from 2025-10-20 to 2025-11-06 (11 days ahead of today).
        let names = try Self.names(from: "2025-10-20", count: 18).reversed()
        let plan = SeriesPlanner().plan(series, listing: try Self.listing(Array(names)), now: Self.now) { _ in false }
        #expect(plan.today.description == "2025-10-26")
        #expect(
            Self.order(plan) == [
                "today 2025-10-26",
                "past 2025-10-25", "past 2025-10-24", "past 2025-10-23", "past 2025-10-22", "past 2025-10-21", "past 2025-10-20",
                "future 2025-10-27", "future 2025-10-28", "future 2025-10-29", "future 2025-10-30", "future 2025-10-31",
                "future 2025-11-01", "future 2025-11-02",
            ])
        #expect(plan.todayToFetch?.url.absoluteString == "https://w.example/p/2025-10-26.bin")
    }

    @Test("today is the series' zone's calendar day: in Auckland it is already the 27th while UTC says the 26th")
    func zoneAhead() throws {
        let names = try Self.names(from: "2025-10-24", count: 6)
        let auckland = SeriesPlanner().plan(
            try Self.series("series https://w.example/p/puzzles.json tz=Pacific/Auckland future=1"), listing: try Self.listing(names),
            now: Self.now
        ) { _ in false }
        #expect(Self.order(auckland) == ["today 2025-10-27", "past 2025-10-26", "past 2025-10-25", "past 2025-10-24", "future 2025-10-28"])
        let utc = SeriesPlanner().plan(
            try Self.series("series https://w.example/p/puzzles.json tz=UTC future=1"), listing: try Self.listing(names), now: Self.now
        ) { _ in false }
        #expect(utc.days.first?.day.description == "2025-10-26")
    }

    @Test("any moment of the day is the same day: a timestamp never misses today's file")
    func calendarDayNotTimestamp() throws {
        let series = try Self.series("series https://w.example/p/puzzles.json tz=UTC past=0 future=0")
        let listing = try Self.listing(["2025-10-26.bin"])
        let midnight = Date(timeIntervalSince1970: 1_761_436_800)  // 2025-10-26 00:00:00 UTC
        for offset in [0, 1, 3600 * 12, 86_399] {
            let plan = SeriesPlanner().plan(series, listing: listing, now: midnight.addingTimeInterval(TimeInterval(offset))) { _ in false }
            #expect(Self.order(plan) == ["today 2025-10-26"], "at +\(offset) s")
        }
        let next = SeriesPlanner().plan(series, listing: listing, now: midnight.addingTimeInterval(86_400)) { _ in false }
        #expect(next.days.isEmpty, "the next day, the 26th is a past day and past=0 leaves it out")
    }

    @Test("what is cached stays in the plan but is not fetched; today cached means tier 1 has nothing for it")
    func cachedSkipped() throws {
        let series = try Self.series("series https://w.example/p/puzzles.json tz=UTC")
        let listing = try Self.listing(try Self.names(from: "2025-10-23", count: 6))
        let cached: Set<String> = ["https://w.example/p/2025-10-26.bin", "https://w.example/p/2025-10-24.bin"]
        let plan = SeriesPlanner().plan(series, listing: listing, now: Self.now) { cached.contains($0.rawValue) }
        #expect(plan.days.count == 6)
        #expect(plan.todayToFetch == nil)
        #expect(SeriesPlanner.backlog([plan]).map(\.day.description) == ["2025-10-25", "2025-10-23", "2025-10-27", "2025-10-28"])
    }

    @Test("a template tries every day in range: past= days back, not before from=, future= ahead")
    func template() throws {
        let series = try Self.series("series https://t.example/{date:yyyy/MM/dd}.json tz=UTC past=5 future=2 from=2025-10-23")
        let plan = SeriesPlanner().plan(series, listing: nil, now: Self.now) { _ in false }
        #expect(
            plan.days.map(\.url.absoluteString) == [
                "https://t.example/2025/10/26.json", "https://t.example/2025/10/25.json", "https://t.example/2025/10/24.json",
                "https://t.example/2025/10/23.json", "https://t.example/2025/10/27.json", "https://t.example/2025/10/28.json",
            ])
    }

    @Test("a manifest that failed plans no day and carries the reason")
    func manifestFailed() throws {
        let series = try Self.series("series https://w.example/p/puzzles.json")
        let plan = SeriesPlanner().plan(
            series, listing: nil, manifestError: "https://w.example/p/puzzles.json: answered HTTP 500", now: Self.now
        ) {
            _ in false
        }
        #expect(plan.days.isEmpty)
        #expect(plan.error?.contains("500") == true)
    }

    @Test("several backlogs interleave by recency: yesterday of each series before the day before of any")
    func backlogAcrossSeries() throws {
        let first = SeriesPlanner().plan(
            try Self.series("series https://a.example/{date}.bin tz=UTC past=2 future=1"), listing: nil, now: Self.now
        ) { _ in false }
        let second = SeriesPlanner().plan(
            try Self.series("series https://b.example/{date}.bin tz=UTC past=2 future=1"), listing: nil, now: Self.now
        ) { _ in false }
        #expect(
            SeriesPlanner.backlog([first, second]).map { "\($0.url.host) \($0.day)" } == [
                "a.example 2025-10-25", "b.example 2025-10-25", "a.example 2025-10-24", "b.example 2025-10-24",
                "a.example 2025-10-27", "b.example 2025-10-27",
            ])
    }
}

/// Series manifests: both shapes, and what is refused.
@Suite("Series manifests")
struct SeriesListingTests {
    static func parse(_ json: String, contentType: String = "application/json") throws -> SeriesListing {
        try SeriesListing.parse(
            status: 200, contentType: contentType, body: Array(json.utf8), manifestURL: try httpURL("https://w.example/p/puzzles.json"),
            allowCrossOrigin: false)
    }

    @Test("WordErase's available_puzzles: names relative to the manifest, dates from the names")
    func available() throws {
        let listing = try Self.parse(
            #"{"last_updated": "2025-10-27T00:00:00Z", "available_puzzles": ["2025-10-26.bin", "old/20251025.bin", "about.txt", "https://else.example/2025-10-24.bin"]}"#
        )
        #expect(
            listing.files.map { "\($0.day) \($0.url.absoluteString)" } == [
                "2025-10-26 https://w.example/p/2025-10-26.bin", "2025-10-25 https://w.example/p/old/20251025.bin",
            ])
        #expect(listing.refused.map(\.url) == ["about.txt", "https://else.example/2025-10-24.bin"])
        #expect(listing.refused.first?.reason == "no date (YYYY-MM-DD or YYYYMMDD) in its name")
    }

    @Test("the declared files form: date given, or read from the url; one file per day")
    func declared() throws {
        let listing = try Self.parse(
            #"{"files": [{"url": "a.bin", "date": "2025-10-26"}, {"url": "b/2025-10-25.bin"}, {"url": "c.bin", "date": "2025-10-26"}, {"url": "d.bin", "date": "26/10"}]}"#
        )
        #expect(
            listing.files.map { "\($0.day) \($0.url.absoluteString)" } == [
                "2025-10-26 https://w.example/p/a.bin", "2025-10-25 https://w.example/p/b/2025-10-25.bin",
            ])
        #expect(listing.refused.map(\.reason) == ["another entry already has the day 2025-10-26", #"its date "26/10" is not YYYY-MM-DD"#])
    }

    @Test(
        "an unusable series manifest names what is wrong",
        arguments: [
            (#"{"files": ["a.bin"]}"#, "application/json", "files[0] is not an object"),
            (#"{"available_puzzles": "a.bin"}"#, "application/json", "available_puzzles is a string, not an array"),
            (#"{"puzzles": []}"#, "application/json", "is not a series manifest"),
            (#"{"available_puzzles": []}"#, "text/html", "served as text/html, not JSON"),
        ]
    )
    func problems(json: String, contentType: String, expected: String) {
        do {
            _ = try Self.parse(json, contentType: contentType)
            Issue.record("parsed")
        } catch let error as ManifestError {
            #expect(error.description.hasPrefix("https://w.example/p/puzzles.json: "))
            #expect(error.problem.contains(expected), "\(error.problem)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
