import Foundation
import LarderHTTP

/// When each declared request runs next, as a value (the rules; ``DeclaredRequestScheduler``
/// executes them, Tests/LarderProxyTests/DeclaredRequestTimetableTests.swift checks them): every
/// request at start-up; then on its ``RequestSchedule``, with jitter; after a failure, after
/// ``RequestSchedule/retryDelay(afterFailures:)``, or, when it could not reach its origin, at
/// once when that origin answered the proxy since (connectivity returned; an origin that
/// answered with an error is not retried sooner for answering others); at once on "refresh
/// now", even one asked for during a run; never while the proxy is offline (what is due then
/// runs when it is back online). One run per request at a time.
struct DeclaredRequestTimetable: Sendable {
    struct Slot: Sendable {
        var request: DeclaredRequest
        /// The origin it was last sent to (its URL may hold placeholders).
        var origin: String?
        var nextRun: Date
        var lastRun: Date?
        var failures = 0
        /// Whether the last run failed to reach the origin at all.
        var unreachable = false
        var running = false
        /// "Refresh now" was asked for while it ran.
        var refreshRequested = false
    }

    private(set) var slots: [Slot]

    /// Every request due at `now` (start-up).
    init(_ requests: [DeclaredRequest], now: Date) {
        self.slots = requests.map { request in
            let url = try? request.url.render(TextTemplate.Context(now: now, timeZone: request.timeZone))
            return Slot(request: request, origin: url.flatMap { try? HTTPURL(parsing: $0) }?.origin, nextRun: now)
        }
    }

    /// The requests to start at `now`, marked running. `originAnswered(origin, since)` says
    /// whether the proxy had an answer from `origin` after `since`.
    mutating func takeDue(now: Date, offline: Bool, originAnswered: (String, Date) -> Bool) -> [DeclaredRequest] {
        guard !offline else { return [] }
        var due: [DeclaredRequest] = []
        for index in self.slots.indices where !self.slots[index].running {
            let slot = self.slots[index]
            let reconnected = slot.unreachable && slot.origin != nil && slot.lastRun.map { originAnswered(slot.origin!, $0) } == true
            if slot.nextRun <= now || reconnected {
                self.slots[index].running = true
                due.append(slot.request)
            }
        }
        return due
    }

    /// Records that the run of `name` started at `started` ended (`succeeded`, or failed and
    /// `unreachable` when it could not connect to `origin`), and returns its next run. `jitter` in
    /// 0..<1 is the share of the schedule's jitter a scheduled run is delayed by.
    mutating func finished(
        _ name: String, started: Date, succeeded: Bool, unreachable: Bool = false, origin: String?, now: Date, jitter: Double
    ) -> Date? {
        guard let index = self.slots.firstIndex(where: { $0.request.name == name }) else { return nil }
        var slot = self.slots[index]
        slot.running = false
        slot.lastRun = started
        slot.origin = origin ?? slot.origin
        let schedule = slot.request.schedule
        var next = schedule.nextRun(after: now, lastRun: started, timeZone: slot.request.timeZone, midnight: slot.request.usesDay)
        next += RequestSchedule.seconds(schedule.jitter) * min(max(jitter, 0), 1)
        if succeeded {
            slot.failures = 0
            slot.unreachable = false
        } else {
            slot.failures += 1
            slot.unreachable = unreachable
            next = min(next, now + RequestSchedule.seconds(RequestSchedule.retryDelay(afterFailures: slot.failures)))
        }
        if slot.refreshRequested {
            slot.refreshRequested = false
            next = now
        }
        slot.nextRun = next
        self.slots[index] = slot
        return next
    }

    /// Makes `name` due at once; false when no request has that name.
    mutating func refreshNow(_ name: String, now: Date) -> Bool {
        guard let index = self.slots.firstIndex(where: { $0.request.name == name }) else { return false }
        if self.slots[index].running {
            self.slots[index].refreshRequested = true
        } else {
            self.slots[index].nextRun = min(self.slots[index].nextRun, now)
        }
        return true
    }

    /// When `name` runs next (nil when unknown).
    func nextRun(of name: String) -> Date? {
        self.slots.first { $0.request.name == name }?.nextRun
    }
}
