import Foundation
import LarderHTTP

/// Where the replay of one origin's queued writes stands, for /dev/offline and `larder queue`.
public struct OriginReplayState: Sendable, Hashable {
    /// Failed attempts at the origin's head since it last answered in a way that ends a write.
    public var consecutiveFailures: Int
    /// When the head is tried again (nil: at the next look, within a second).
    public var nextAttempt: Date?
    /// Why the last attempt failed.
    public var lastError: String?
    /// When the last attempt failed.
    public var lastFailure: Date?

    /// A state.
    public init(consecutiveFailures: Int = 0, nextAttempt: Date? = nil, lastError: String? = nil, lastFailure: Date? = nil) {
        self.consecutiveFailures = consecutiveFailures
        self.nextAttempt = nextAttempt
        self.lastError = lastError
        self.lastFailure = lastFailure
    }
}

/// When each origin's queue is replayed (docs/SERVING.md, "Queued writes"): at once unless its
/// head failed, then after ``ReplayBackoff/delay(afterFailures:)``, or earlier when the origin was
/// seen answering since the failure, or on retry-now. One drain per origin at a time; origins are
/// independent, so a failing head holds up only its own origin.
struct WriteReplayTimetable: Sendable {
    /// The back-off between attempts at a failing head.
    let backoff: ReplayBackoff
    /// Origins whose last attempt failed; an origin absent is due.
    private(set) var states: [String: OriginReplayState] = [:]
    /// Origins being drained now.
    private(set) var draining: Set<String> = []

    init(backoff: ReplayBackoff) {
        self.backoff = backoff
    }

    /// The origins among `pending` to drain now, marked as draining. `answeredSince` tells whether
    /// an origin answered any request after a moment: connectivity returned, the back-off ends.
    mutating func takeDue(_ pending: [String], now: Date, answeredSince: (String, Date) -> Bool) -> [String] {
        var due: [String] = []
        for origin in pending where !self.draining.contains(origin) {
            if let state = self.states[origin], let next = state.nextAttempt, next > now {
                guard let failed = state.lastFailure, answeredSince(origin, failed) else { continue }
                self.states[origin] = nil
            }
            self.draining.insert(origin)
            due.append(origin)
        }
        return due
    }

    /// The earliest moment an origin's back-off ends, for waking up on time.
    var earliestAttempt: Date? {
        self.states.values.compactMap(\.nextAttempt).min()
    }

    /// The origin answered a replay in a way that ends the write (delivered or dead-lettered): its back-off resets.
    mutating func answered(_ origin: String) {
        self.states[origin] = nil
    }

    /// A replay to `origin` failed with `error` at `now`: it waits one more step.
    mutating func failed(_ origin: String, error: String, now: Date) {
        var state = self.states[origin] ?? OriginReplayState()
        state.consecutiveFailures += 1
        state.lastError = error
        state.lastFailure = now
        state.nextAttempt = now.addingTimeInterval(self.backoff.delay(afterFailures: state.consecutiveFailures).seconds)
        self.states[origin] = state
    }

    /// The drain of `origin` ended (its queue empty, its head failing, or the proxy going offline).
    mutating func finished(_ origin: String) {
        self.draining.remove(origin)
    }

    /// Retry now: `origin`'s back-off (every origin's when nil) ends.
    mutating func retryNow(_ origin: String?) {
        if let origin {
            self.states[origin] = nil
        } else {
            self.states.removeAll()
        }
    }
}
