import Foundation
import Testing

@testable import LarderHTTP

/// Placeholders, calendar days and schedules of declared requests.
@Suite("Declared request rules")
struct DeclaredRequestRulesTests {
    private static let utc = TimeZone(identifier: "UTC")!
    private static let newYork = TimeZone(identifier: "America/New_York")!

    /// 2026-03-01 02:30 UTC: still 28 February in New York, already 1 March (16:30) in Kiritimati.
    private static let lateNightUTC = Date(timeIntervalSince1970: 1_772_332_200)

    @Test("today is the calendar day in the request's zone, not UTC's")
    func todayByZone() throws {
        let template = try TextTemplate(parsing: #"{"day":"{{today}}","prev":"{{today-1}}","next":"{{ today+1:yyyyMMdd }}"}"#)
        let inNewYork = try template.render(.init(now: Self.lateNightUTC, timeZone: Self.newYork, environment: [:]))
        #expect(inNewYork == #"{"day":"2026-02-28","prev":"2026-02-27","next":"20260301"}"#)
        let inUTC = try template.render(.init(now: Self.lateNightUTC, timeZone: Self.utc, environment: [:]))
        #expect(inUTC == #"{"day":"2026-03-01","prev":"2026-02-28","next":"20260302"}"#)
        #expect(template.usesDay)
    }

    @Test("days add across months, leap days and years; formats write them")
    func dayArithmetic() throws {
        func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(parsing: text)) }
        #expect(try day("2024-02-28").adding(days: 1).description == "2024-02-29")
        #expect(try day("2024-02-29").adding(days: 1).description == "2024-03-01")
        #expect(try day("2026-12-31").adding(days: 1).description == "2027-01-01")
        #expect(try day("2026-01-01").adding(days: -1).description == "2025-12-31")
        #expect(try day("2026-01-01").adding(days: 2000).description == "2031-06-24")
        #expect(try day("2026-03-01") > day("2026-02-28"))
        #expect(try DayFormat(parsing: "dd/MM/yyyy").format(day("2026-03-09")) == "09/03/2026")
        #expect(throws: DayFormat.Problem.self) { try DayFormat(parsing: "yyyy-MMM") }
    }

    @Test("environment placeholders; unknown placeholders are refused when read")
    func environmentAndErrors() throws {
        let header = try TextTemplate(parsing: "Bearer {{env:API_TOKEN}}")
        #expect(try header.render(.init(now: Date(), timeZone: Self.utc, environment: ["API_TOKEN": "s3cret"])) == "Bearer s3cret")
        #expect(!header.usesDay)
        #expect(throws: TextTemplate.Problem.self) { try header.render(.init(now: Date(), timeZone: Self.utc, environment: [:])) }
        for bad in ["{{tomorrow}}", "{{today+x}}", "{{today*2}}", "{{env:}}", "{{today:}}", "{{today:ddd MMMM}}", "{{}}"] {
            #expect(throws: TextTemplate.Problem.self, "\(bad)") { try TextTemplate(parsing: bad) }
        }
        // Text without a closing brace pair is literal.
        #expect(try TextTemplate(parsing: "a {{ b").render(.init(now: Date(), timeZone: Self.utc, environment: [:])) == "a {{ b")
    }

    @Test("every N: the next run is N after the last")
    func everyInterval() {
        let schedule = RequestSchedule(every: .seconds(900))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(schedule.nextRun(after: start + 5, lastRun: start, timeZone: Self.utc, midnight: false) == start + 900)
        // A run long overdue (the machine slept) is not made up in a burst.
        #expect(schedule.nextRun(after: start + 5000, lastRun: start, timeZone: Self.utc, midnight: false) == start + 5900)
    }

    @Test("a daily time is taken in the request's zone; every N repeats from it within the day")
    func dailyAnchor() throws {
        let daily = RequestSchedule(every: .seconds(86_400), at: .init(parsing: "04:30"))
        // 2026-03-01 02:30 UTC is 21:30 on 28 February in New York: next is 04:30 New York on 1 March = 09:30 UTC.
        let next = daily.nextRun(after: Self.lateNightUTC, lastRun: Self.lateNightUTC, timeZone: Self.newYork, midnight: false)
        #expect(next == Date(timeIntervalSince1970: 1_772_357_400))
        let sixHourly = RequestSchedule(every: .seconds(6 * 3600), at: .init(parsing: "04:30"))
        // 21:30 New York: the runs of 28 February were 04:30, 10:30, 16:30, 22:30: next is 22:30 = 03:30 UTC.
        let soon = sixHourly.nextRun(after: Self.lateNightUTC, lastRun: Self.lateNightUTC, timeZone: Self.newYork, midnight: false)
        #expect(soon == Self.lateNightUTC + 3600)
        #expect(RequestSchedule.TimeOfDay(parsing: "24:00") == nil)
        #expect(RequestSchedule.TimeOfDay(parsing: "7:5") != nil)
        #expect(RequestSchedule.TimeOfDay(parsing: "0730") == nil)
    }

    @Test("a request naming a day also runs just after midnight in its zone")
    func midnightRun() {
        let hourly = RequestSchedule(every: .seconds(86_400))
        // 21:30 in New York: midnight there is 05:00 UTC, 2.5 hours away.
        let next = hourly.nextRun(after: Self.lateNightUTC, lastRun: Self.lateNightUTC, timeZone: Self.newYork, midnight: true)
        #expect(next == Date(timeIntervalSince1970: 1_772_341_201))
    }

    @Test("retries back off from 5 s, doubling, to at most 5 minutes")
    func retryBackoff() {
        #expect(RequestSchedule.retryDelay(afterFailures: 1) == .seconds(5))
        #expect(RequestSchedule.retryDelay(afterFailures: 2) == .seconds(10))
        #expect(RequestSchedule.retryDelay(afterFailures: 4) == .seconds(40))
        #expect(RequestSchedule.retryDelay(afterFailures: 7) == .seconds(300))
        #expect(RequestSchedule.retryDelay(afterFailures: 100) == .seconds(300))
    }
}
