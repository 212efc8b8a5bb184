import Foundation

/// Connect-failure back-off for one upstream host.
///
/// After `threshold` consecutive connect failures, requests stop waiting on the host for a
/// window that doubles with each further failure (up to `maximumWindow`). With the network gone,
/// cached answers are then immediate instead of each waiting for a connect timeout. During the
/// window one request at most every `probeInterval` is still let through as a probe (``admit(now:)``),
/// so an origin that returns is noticed within about that long, not at the window's end; its
/// answer ends the back-off (docs/SERVING.md, "Disconnected operation").
public struct HostHealth: Sendable, Hashable {
    /// The back-off settings.
    public struct Policy: Sendable, Hashable {
        /// Consecutive connect failures before backing off.
        public var threshold: Int
        /// The first back-off window.
        public var initialWindow: TimeInterval
        /// The longest back-off window.
        public var maximumWindow: TimeInterval
        /// During a back-off, the least time between two probes (requests let through to the host).
        public var probeInterval: TimeInterval

        /// Creates a policy; the defaults suit a browser session.
        public init(
            threshold: Int = 2, initialWindow: TimeInterval = 10, maximumWindow: TimeInterval = 120, probeInterval: TimeInterval = 1
        ) {
            self.threshold = threshold
            self.initialWindow = initialWindow
            self.maximumWindow = maximumWindow
            self.probeInterval = probeInterval
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
    /// When the latest probe was let through during a back-off.
    public private(set) var lastProbe: Date?

    /// A healthy host.
    public init() {}

    /// Whether `now` is outside a back-off window (what reports show; a request asks ``admit(now:policy:)``).
    public func shouldAttempt(now: Date) -> Bool {
        guard let until = self.backoffUntil else { return true }
        return now >= until
    }

    /// Whether a request at `now` tries the network: outside a back-off window always; within one
    /// as the probe, when no probe went in the `policy.probeInterval` before `now` (the probe's time
    /// is then recorded). A clock that went back behind the last probe starts afresh, so probes
    /// never stall until it catches up.
    public mutating func admit(now: Date, policy: Policy) -> Bool {
        guard !self.shouldAttempt(now: now) else { return true }
        if let last = self.lastProbe, now >= last, now.timeIntervalSince(last) < policy.probeInterval {
            return false
        }
        self.lastProbe = now
        return true
    }

    /// Records an answer from the host (any HTTP response counts: the host is reachable).
    public mutating func recordSuccess(now: Date) {
        self.consecutiveFailures = 0
        self.backoffUntil = nil
        self.lastProbe = nil
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
