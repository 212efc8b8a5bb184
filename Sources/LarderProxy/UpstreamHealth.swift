import Foundation

/// Connect-failure back-off for one upstream host.
///
/// After `threshold` consecutive connect failures, requests stop waiting on the host for a
/// window that doubles with each further failure (up to `maximumWindow`). When the window
/// ends, the next request probes the host again. With the network gone, cached answers are
/// then immediate instead of each waiting for a connect timeout.
public struct HostHealth: Sendable, Hashable {
    /// The back-off settings.
    public struct Policy: Sendable, Hashable {
        /// Consecutive connect failures before backing off.
        public var threshold: Int
        /// The first back-off window.
        public var initialWindow: TimeInterval
        /// The longest back-off window.
        public var maximumWindow: TimeInterval

        /// Creates a policy; the defaults suit a browser session.
        public init(threshold: Int = 2, initialWindow: TimeInterval = 10, maximumWindow: TimeInterval = 120) {
            self.threshold = threshold
            self.initialWindow = initialWindow
            self.maximumWindow = maximumWindow
        }
    }

    /// Connect failures since the last success.
    public private(set) var consecutiveFailures = 0
    /// Requests skip the network until this moment.
    public private(set) var backoffUntil: Date?
    /// The last failure's description.
    public private(set) var lastError: String?
    /// When the host last answered.
    public private(set) var lastSuccess: Date?

    /// A healthy host.
    public init() {}

    /// Whether a request at `now` should try the network.
    public func shouldAttempt(now: Date) -> Bool {
        guard let until = self.backoffUntil else { return true }
        return now >= until
    }

    /// Records an answer from the host (any HTTP response counts: the host is reachable).
    public mutating func recordSuccess(now: Date) {
        self.consecutiveFailures = 0
        self.backoffUntil = nil
        self.lastSuccess = now
    }

    /// Records a failure to connect.
    public mutating func recordConnectFailure(_ description: String, now: Date, policy: Policy) {
        self.consecutiveFailures += 1
        self.lastError = description
        guard self.consecutiveFailures >= policy.threshold else { return }
        let doublings = min(self.consecutiveFailures - policy.threshold, 16)
        let window = min(policy.initialWindow * pow(2, Double(doublings)), policy.maximumWindow)
        self.backoffUntil = now.addingTimeInterval(window)
    }
}
