import Foundation
import LarderHTTP
import Testing

@testable import LarderProxy

/// When declared requests run: start-up, schedule, back-off, connectivity returning, refresh now, offline.
@Suite("Declared request timetable")
struct DeclaredRequestTimetableTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func request(_ name: String, every seconds: Int64 = 3600) throws -> DeclaredRequest {
        DeclaredRequest(
            name: name, method: "GET", url: try TextTemplate(parsing: "http://\(name).example/data"), bodyKey: .exact,
            schedule: RequestSchedule(every: .seconds(seconds)), timeZone: TimeZone(identifier: "UTC")!)
    }

    /// The names due at `now`, taken.
    private func due(
        _ timetable: inout DeclaredRequestTimetable, at now: Date, offline: Bool = false,
        answered: (String, Date) -> Bool = { _, _ in false }
    ) -> [String] {
        timetable.takeDue(now: now, offline: offline, originAnswered: answered).map(\.name)
    }

    @Test("every request runs at start-up, once at a time, then on its schedule")
    func startUpThenSchedule() throws {
        var timetable = DeclaredRequestTimetable([try request("a"), try request("b", every: 600)], now: Self.start)
        #expect(self.due(&timetable, at: Self.start) == ["a", "b"])
        // Running: not due again until it finishes.
        #expect(self.due(&timetable, at: Self.start + 10_000).isEmpty)
        let nextA = timetable.finished("a", started: Self.start, succeeded: true, origin: nil, now: Self.start + 1, jitter: 0)
        let nextB = timetable.finished("b", started: Self.start, succeeded: true, origin: nil, now: Self.start + 1, jitter: 0)
        #expect(nextA == Self.start + 3600)
        #expect(nextB == Self.start + 600)
        #expect(self.due(&timetable, at: Self.start + 599).isEmpty)
        #expect(self.due(&timetable, at: Self.start + 600) == ["b"])
    }

    @Test("a failure retries with back-off, or at once when the origin answered the proxy since")
    func failureAndReconnect() throws {
        var timetable = DeclaredRequestTimetable([try request("a")], now: Self.start)
        _ = self.due(&timetable, at: Self.start)
        let retry = timetable.finished(
            "a", started: Self.start, succeeded: false, unreachable: true, origin: "http://a.example", now: Self.start + 3, jitter: 0.9)
        #expect(retry == Self.start + 3 + 5)
        #expect(self.due(&timetable, at: Self.start + 4).isEmpty)
        // The proxy saw the origin answer after the failed run: run now.
        #expect(self.due(&timetable, at: Self.start + 4) { origin, since in origin == "http://a.example" && since == Self.start } == ["a"])
        // The origin answered, with an error: the proxy's traffic to it is no reason to retry sooner.
        let second = timetable.finished("a", started: Self.start + 4, succeeded: false, origin: nil, now: Self.start + 5, jitter: 0)
        #expect(second == Self.start + 5 + 10)
        #expect(self.due(&timetable, at: Self.start + 6) { _, _ in true }.isEmpty)
        #expect(self.due(&timetable, at: Self.start + 15) == ["a"])
    }

    @Test("refresh now asked for during a run runs it again when it ends")
    func refreshDuringRun() throws {
        var timetable = DeclaredRequestTimetable([try request("a")], now: Self.start)
        _ = self.due(&timetable, at: Self.start)
        let asked = timetable.refreshNow("a", now: Self.start + 1)
        #expect(asked)
        let next = timetable.finished("a", started: Self.start, succeeded: true, origin: nil, now: Self.start + 2, jitter: 0)
        #expect(next == Self.start + 2)
        #expect(self.due(&timetable, at: Self.start + 2) == ["a"])
    }

    @Test("jitter delays scheduled runs by its share")
    func jitter() throws {
        var request = try request("a")
        request.schedule.jitter = .seconds(100)
        var timetable = DeclaredRequestTimetable([request], now: Self.start)
        _ = self.due(&timetable, at: Self.start)
        let next = timetable.finished("a", started: Self.start, succeeded: true, origin: nil, now: Self.start, jitter: 0.5)
        #expect(next == Self.start + 3650)
    }

    @Test("nothing runs while offline; refresh now makes a request due")
    func offlineAndRefresh() throws {
        var timetable = DeclaredRequestTimetable([try request("a")], now: Self.start)
        #expect(self.due(&timetable, at: Self.start, offline: true) { _, _ in true }.isEmpty)
        #expect(self.due(&timetable, at: Self.start + 1) == ["a"])
        _ = timetable.finished("a", started: Self.start, succeeded: true, origin: nil, now: Self.start + 1, jitter: 0)
        let known = timetable.refreshNow("a", now: Self.start + 2)
        let unknown = timetable.refreshNow("nope", now: Self.start + 2)
        #expect(known)
        #expect(!unknown)
        #expect(self.due(&timetable, at: Self.start + 2) == ["a"])
    }
}
