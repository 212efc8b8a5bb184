import Foundation
import LarderHTTP
import Synchronization

/// What the proxy has answered since it started: counters by outcome and the most recent
/// requests, for /dev/offline, /dev/offline.json and /metrics. Updating costs O(1).
public final class ProxyStatistics: Sendable {
    /// How one answer is counted.
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        /// Answered from the cache (fresh, precached, or offline).
        case hit
        /// Fetched from upstream (stored or not).
        case miss
        /// Served from the cache because upstream failed, was backing off or too slow.
        case stale
        /// Not answered: the origin could not answer (unreachable, timed out, backing off, offline
        /// mode) and nothing stored could be used (see ``OfflineMisses``). A miss, not an error.
        case offlineMiss = "offline-miss"
        /// Any other error answer (refusals, a `cache-only` or `only-if-cached` miss).
        case error
        /// Not a cache matter: tunnels, Larder's own pages.
        case bypass

        /// Classifies an answer by its status and `Cache-Status`.
        public static func classify(status: Int, cacheStatus: CacheStatus?) -> Outcome {
            guard let cacheStatus else { return status >= 400 ? .error : .bypass }
            if cacheStatus.hit {
                switch cacheStatus.detail {
                case "upstream-unreachable", "upstream-backoff", "network-timeout": return .stale
                case let detail? where detail.hasPrefix("upstream-"): return .stale
                default: return .hit
                }
            }
            if OfflineMisses.Reason(cacheStatus: cacheStatus) != nil { return .offlineMiss }
            // A stream or tunnel upstream answered (`fwd-status`) is relayed as it is, not a failure of Larder's.
            if cacheStatus.forward == .bypass { return status >= 400 && cacheStatus.forwardStatus == nil ? .error : .bypass }
            return cacheStatus.forwardStatus == nil && status >= 400 ? .error : .miss
        }
    }

    /// One answered request.
    public struct RecentRequest: Sendable, Codable, Hashable {
        /// When it was answered.
        public var time: Date
        /// The request method.
        public var method: String
        /// The request target (absolute URL, or a path for Larder's own pages).
        public var url: String
        /// The status sent.
        public var status: Int
        /// The `Cache-Status` sent, if any.
        public var cacheStatus: String?
        /// How it was counted.
        public var outcome: Outcome
        /// Milliseconds from the request head to the answer's end.
        public var milliseconds: Double
    }

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
