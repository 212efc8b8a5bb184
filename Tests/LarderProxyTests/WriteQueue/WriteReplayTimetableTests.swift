import Foundation
import LarderHTTP
import Testing

@testable import LarderProxy

/// When each origin's queued writes are replayed: at once, one drain at a time, the seed's back-off
/// after a failure, connectivity returning, retry-now; origins independent.
@Suite("Write replay timetable")
struct WriteReplayTimetableTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)
    private static let seed = ReplayBackoff(base: .milliseconds(1500), step: .seconds(1), maximum: .seconds(60))

    @Test("pending origins are due at once, each drained once at a time")
    func dueAtOnce() {
        var timetable = WriteReplayTimetable(backoff: Self.seed)
        #expect(timetable.takeDue(["a", "b"], now: Self.start) { _, _ in false } == ["a", "b"])
        #expect(timetable.takeDue(["a", "b"], now: Self.start) { _, _ in false }.isEmpty)
        timetable.finished("a")
        #expect(timetable.takeDue(["a", "b"], now: Self.start) { _, _ in false } == ["a"])
    }

    @Test("a failing head waits 1.5 s, then 2.5 s, 3.5 s: only its own origin")
    func backoffPerOrigin() {
        var timetable = WriteReplayTimetable(backoff: Self.seed)
        _ = timetable.takeDue(["a", "b"], now: Self.start) { _, _ in false }
        timetable.failed("a", error: "HTTP 503", now: Self.start)
        timetable.finished("a")
        timetable.finished("b")
        #expect(timetable.earliestAttempt(after: Self.start) == Self.start.addingTimeInterval(1.5))
        #expect(timetable.takeDue(["a", "b"], now: Self.start.addingTimeInterval(1.4)) { _, _ in false } == ["b"])
        #expect(timetable.takeDue(["a"], now: Self.start.addingTimeInterval(1.5)) { _, _ in false } == ["a"])

        let second = Self.start.addingTimeInterval(1.5)
        timetable.failed("a", error: "HTTP 503", now: second)
        timetable.finished("a")
        #expect(timetable.states["a"]?.consecutiveFailures == 2)
        #expect(timetable.states["a"]?.nextAttempt == second.addingTimeInterval(2.5))
        #expect(timetable.states["a"]?.lastError == "HTTP 503")
        #expect(timetable.takeDue(["a"], now: second.addingTimeInterval(2.4)) { _, _ in false }.isEmpty)
    }

    @Test("an answer that settles a write resets the back-off")
    func answerResets() {
        var timetable = WriteReplayTimetable(backoff: Self.seed)
        timetable.failed("a", error: "refused", now: Self.start)
        timetable.failed("a", error: "refused", now: Self.start)
        timetable.answered("a")
        #expect(timetable.states["a"] == nil)
        timetable.failed("a", error: "refused", now: Self.start)
        #expect(timetable.states["a"]?.nextAttempt == Self.start.addingTimeInterval(1.5))
    }

    @Test("an unreachable origin seen answering since its failure is due before its back-off ends; one that answered 503 is not")
    func connectivityReturns() {
        var busy = WriteReplayTimetable(backoff: Self.seed)
        busy.failed("a", error: "HTTP 503", now: Self.start)
        #expect(busy.takeDue(["a"], now: Self.start.addingTimeInterval(0.5)) { _, _ in true }.isEmpty)

        var timetable = WriteReplayTimetable(backoff: Self.seed)
        timetable.failed("a", error: "refused", now: Self.start, unreachable: true)
        let soon = Self.start.addingTimeInterval(0.5)
        #expect(timetable.takeDue(["a"], now: soon) { _, since in since > Self.start }.isEmpty)
        #expect(timetable.takeDue(["a"], now: soon) { origin, since in origin == "a" && since == Self.start } == ["a"])
        #expect(timetable.states["a"] == nil)
    }

    @Test("an origin with nothing pending any more leaves no back-off to wake up for")
    func nothingPending() {
        var timetable = WriteReplayTimetable(backoff: Self.seed)
        timetable.failed("a", error: "HTTP 503", now: Self.start)
        #expect(timetable.earliestAttempt(after: Self.start) == Self.start.addingTimeInterval(1.5))
        #expect(timetable.earliestAttempt(after: Self.start.addingTimeInterval(2)) == nil, "a time already past is no reason to wake")
        #expect(timetable.takeDue([], now: Self.start) { _, _ in false }.isEmpty)
        #expect(timetable.states["a"] == nil)
        #expect(timetable.earliestAttempt(after: Self.start) == nil)
    }

    @Test("retry-now ends one origin's back-off")
    func retryNow() {
        var timetable = WriteReplayTimetable(backoff: Self.seed)
        timetable.failed("a", error: "refused", now: Self.start)
        timetable.failed("b", error: "refused", now: Self.start)
        timetable.retryNow("a")
        #expect(timetable.takeDue(["a", "b"], now: Self.start) { _, _ in false } == ["a"])
    }
}
