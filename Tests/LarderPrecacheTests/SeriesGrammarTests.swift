import Foundation
import LarderHTTP
import LarderPrecache
import LarderStore
import Testing

/// `series` lines of a games list.
@Suite("Games list: series lines")
struct SeriesGrammarTests {
    private static func onlySeries(_ line: String) throws -> SeriesSource {
        let list = GamesList.parse(line + "\n", source: "games.txt")
        #expect(list.problems.isEmpty, "\(list.problems)")
        return try #require(list.series.first)
    }

    private static func problem(_ line: String) -> String? {
        let list = GamesList.parse("page https://games.example/\n" + line + "\n", source: "games.txt")
        #expect(list.entries.count == 1, "the other lines still count")
        return list.problems.first?.description
    }

    @Test("a manifest series takes every listed day back to the limit, 7 days ahead, the machine's zone")
    func manifestDefaults() throws {
        let series = try Self.onlySeries("series https://words.example/p/puzzles.json")
        #expect(series.kind == .manifest(try httpURL("https://words.example/p/puzzles.json")))
        #expect(series.past == 3650)
        #expect(series.future == 7)
        #expect(series.timeZone == TimeZone.current)
        #expect(series.from == nil)
        #expect(series.line == "series https://words.example/p/puzzles.json")
        #expect(series.lineNumber == 1)
        #expect(series.location == "https://words.example/p/puzzles.json")
    }

    @Test("a template series tries 30 past days by default; options are read in any order")
    func templateOptions() throws {
        let plain = try Self.onlySeries("series https://x.example/p/{date}.bin")
        #expect(plain.past == 30)
        #expect(plain.future == 7)
        let series = try Self.onlySeries(
            "series\thttps://x.example/p/{date:yyyyMMdd}.json  from=2025-01-31 tz=Pacific/Auckland future=2 past=400")
        guard case .template(let template) = series.kind else {
            Issue.record("not a template: \(series.kind)")
            return
        }
        #expect(template.url(for: CalendarDay(year: 2025, month: 3, day: 9)!) == "https://x.example/p/20250309.json")
        #expect(series.past == 400)
        #expect(series.future == 2)
        #expect(series.timeZone.identifier == "Pacific/Auckland")
        #expect(series.from == CalendarDay(year: 2025, month: 1, day: 31))
        #expect(series.line == "series https://x.example/p/{date:yyyyMMdd}.json from=2025-01-31 tz=Pacific/Auckland future=2 past=400")
    }

    @Test(
        "bad series lines are problems naming the line and what is wrong",
        arguments: [
            ("series", "needs a manifest URL or a URL template"),
            ("series ftp://x.example/p.json", "unsupported scheme"),
            ("series https://x.example/p/{day}.bin", "{day} is not a date pattern"),
            ("series https://x.example/p/{date:yyyy-MMM}.bin", "use yyyy, MM and dd"),
            ("series https://x.example/p/{date.bin", "without its \"}\""),
            ("series https://x.example/p/date}.bin", "without its \"{\""),
            ("series https://x.example/p.json past=-1", "past=-1: expected a whole number of days from 0 to 3650"),
            ("series https://x.example/p.json past=3651", "from 0 to 3650"),
            ("series https://x.example/p.json future=32", "future=32: expected a whole number of days from 0 to 31"),
            ("series https://x.example/p.json future=seven", "future=seven"),
            ("series https://x.example/p.json tz=Mars/Olympus", "tz=Mars/Olympus: not a known time zone"),
            ("series https://x.example/p.json from=2025-02-30", "from=2025-02-30: not a date"),
            ("series https://x.example/p.json every=1", "unknown series option \"every\""),
            ("series https://x.example/p.json past=1 past=2", "past is given twice"),
            ("series https://x.example/p.json 7", "is not NAME=VALUE"),
        ]
    )
    func problems(line: String, expected: String) {
        let problem = Self.problem(line)
        #expect(problem?.hasPrefix("games.txt:2: ") == true, "\(problem ?? "none")")
        #expect(problem?.contains(expected) == true, "\(problem ?? "none")")
    }

    @Test("a line naming a series twice counts once; a .json URL without the keyword is still a game")
    func keywordKeepsOldMeaning() throws {
        let list = GamesList.parse(
            """
            series https://x.example/p/puzzles.json
            series https://x.example/p/puzzles.json past=3
            https://x.example/p/puzzles.json
            """, source: "games.txt")
        #expect(list.series.count == 1)
        #expect(list.series.first?.past == 3650)
        #expect(list.games.map(\.manifestURL.absoluteString) == ["https://x.example/p/puzzles.json"])
    }
}

/// Calendar days: parsing, dates in names, arithmetic, zones.
@Suite("Calendar days")
struct CalendarDayTests {
    @Test("YYYY-MM-DD parses strictly; impossible days do not")
    func parsing() {
        #expect(CalendarDay(parsing: "2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDay(parsing: "2025-02-29") == nil)
        #expect(CalendarDay(parsing: "2025-13-01") == nil)
        #expect(CalendarDay(parsing: "2025-1-01") == nil)
        #expect(CalendarDay(parsing: "20250101") == nil)
    }

    @Test(
        "the first date in a name",
        arguments: [
            ("2025-10-26.bin", "2025-10-26"),
            ("puzzles/p20251026.json", "2025-10-26"),
            ("v2/2025-10-26-hard.bin", "2025-10-26"),
            ("x/12025-10-26.bin", nil),
            ("20251399.bin", nil),
            ("123456789.bin", nil),
            ("today.bin", nil),
        ] as [(String, String?)]
    )
    func firstDate(name: String, expected: String?) {
        #expect(CalendarDay.first(in: name)?.description == expected)
    }

    @Test("adding days crosses months, leap days and years")
    func arithmetic() throws {
        let day = try #require(CalendarDay(year: 2024, month: 2, day: 28))
        #expect(day.adding(days: 1).description == "2024-02-29")
        #expect(day.adding(days: 2).description == "2024-03-01")
        #expect(day.adding(days: -59).description == "2023-12-31")
        #expect(day.adding(days: 2000).description == "2029-08-20")
        #expect(day.days(to: day.adding(days: -2000)) == -2000)
    }

    @Test("the same instant is a different day in Auckland and Los Angeles than in UTC")
    func zones() throws {
        // 2025-10-26 11:30 UTC: 2025-10-27 00:30 in Auckland (NZDT, +13), 04:30 on the 26th in Los Angeles.
        let instant = Date(timeIntervalSince1970: 1_761_478_200)
        #expect(CalendarDay(instant, in: try #require(TimeZone(identifier: "UTC"))).description == "2025-10-26")
        #expect(CalendarDay(instant, in: try #require(TimeZone(identifier: "Pacific/Auckland"))).description == "2025-10-27")
        #expect(
            CalendarDay(instant.addingTimeInterval(-12 * 3600), in: try #require(TimeZone(identifier: "America/Los_Angeles"))).description
                == "2025-10-25")
    }
}
