import Foundation
import LarderHTTP
import LarderIntrospection

/// When each origin's queue is replayed (docs/SERVING.md, "Queued writes"): at once unless its
/// head failed, then after ``ReplayBackoff/delay(afterFailures:)``, or, when the origin could not be
/// reached, earlier when it was seen answering since (an origin that answered 503 or 429 is not
/// asked again sooner for answering the app's other requests), or on retry-now. One drain per origin at a time; origins are
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
        // An origin with nothing pending any more (its head dropped, expired or dead-lettered by
        // hand) has no back-off left to wait out.
        let waiting = Set(pending)
        self.states = self.states.filter { waiting.contains($0.key) || self.draining.contains($0.key) }
        var due: [String] = []
        for origin in pending where !self.draining.contains(origin) {
            if let state = self.states[origin], let next = state.nextAttempt, next > now {
                guard state.unreachable, let failed = state.lastFailure, answeredSince(origin, failed) else { continue }
                self.states[origin] = nil
            }
            self.draining.insert(origin)
            due.append(origin)
        }
        return due
    }

    /// The earliest moment after `now` an origin's back-off ends, for waking up on time (one
    /// already past, or of an origin being drained, is taken at the next look anyway).
    func earliestAttempt(after now: Date) -> Date? {
        self.states.filter { !self.draining.contains($0.key) }.values.compactMap(\.nextAttempt).filter { $0 > now }.min()
    }

    /// The origin answered a replay in a way that ends the write (delivered or dead-lettered): its back-off resets.
    mutating func answered(_ origin: String) {
        self.states[origin] = nil
    }

    /// A replay to `origin` failed with `error` at `now` (`unreachable`: no answer at all): it
    /// waits one more step.
    mutating func failed(_ origin: String, error: String, now: Date, unreachable: Bool = false) {
        var state = self.states[origin] ?? OriginReplayState()
        state.consecutiveFailures += 1
        state.lastError = error
        state.lastFailure = now
        state.unreachable = unreachable
        state.nextAttempt = now.addingTimeInterval(self.backoff.delay(afterFailures: state.consecutiveFailures).seconds)
        self.states[origin] = state
    }

    /// The drain of `origin` ended (its queue empty, its head failing, or the proxy going offline).
    mutating func finished(_ origin: String) {
        self.draining.remove(origin)
    }

    /// Retry now: `origin`'s back-off ends.
    mutating func retryNow(_ origin: String) {
        self.states[origin] = nil
    }
}
