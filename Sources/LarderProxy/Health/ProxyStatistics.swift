import Foundation
import LarderHTTP
import LarderIntrospection
import Synchronization

/// What the proxy has answered since it started: counters by outcome and the most recent
/// requests, for /dev/offline, /dev/offline.json and /metrics. Updating costs O(1).
public final class ProxyStatistics: Sendable {
    /// How one answer is counted.
    public typealias Outcome = RequestOutcome
    /// One answered request.
    public typealias RecentRequest = LarderIntrospection.RecentRequest

    private struct State {
        var counts: [Outcome: Int] = [:]
        var recent: [RecentRequest] = []
        var nextSlot = 0
    }

    /// How many recent requests are kept.
    public let recentCapacity: Int
    /// When counting began.
    public let startedAt: Date
    private let state = Mutex(State())

    /// Creates empty statistics, counting from `startedAt`.
    public init(recentCapacity: Int = 100, startedAt: Date) {
        self.recentCapacity = recentCapacity
        self.startedAt = startedAt
    }

    /// Records one answer.
    public func record(_ request: RecentRequest) {
        self.state.withLock { state in
            state.counts[request.outcome, default: 0] += 1
            if state.recent.count < self.recentCapacity {
                state.recent.append(request)
            } else {
                state.recent[state.nextSlot] = request
            }
            state.nextSlot = (state.nextSlot + 1) % self.recentCapacity
        }
    }

    /// Answers so far, of every outcome.
    public var answered: Int {
        self.state.withLock { $0.counts.values.reduce(0, +) }
    }

    /// Answers so far by outcome.
    public func counts() -> [Outcome: Int] {
        self.state.withLock { $0.counts }
    }

    /// The most recent answers, newest first.
    public func recentRequests() -> [RecentRequest] {
        self.state.withLock { state in
            let ordered =
                state.recent.count < self.recentCapacity
                ? state.recent
                : Array(state.recent[state.nextSlot...] + state.recent[..<state.nextSlot])
            return ordered.reversed()
        }
    }
}
