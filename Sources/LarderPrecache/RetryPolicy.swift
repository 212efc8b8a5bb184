import LarderHTTP
import LarderUpstream

/// When a precache download is tried again, and after how long.
///
/// Transient failures (connections that fail or break, timeouts, 5xx, 408, 429, a truncated
/// body) are retried with exponential back-off; a 4xx never is, and neither is a TLS
/// verification failure (trying again cannot fix a certificate).
public struct RetryPolicy: Sendable, Hashable {
    /// How many tries in all (1 means no retry).
    public var attempts: Int
    /// The wait before the second try; it doubles for each further one.
    public var baseDelay: Duration
    /// The longest wait between tries.
    public var maximumDelay: Duration

    /// Creates a policy.
    public init(attempts: Int = 3, baseDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(10)) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// Whether an HTTP status is worth another try.
    public static func isTransient(status: Int) -> Bool {
        status >= 500 || status == 408 || status == 429
    }

    /// Whether an upstream failure is worth another try.
    public static func isTransient(_ error: UpstreamError) -> Bool {
        switch error.kind {
        case .tls, .invalidRequest, .cancelled, .forbiddenAddress: false
        default: true
        }
    }

    /// The wait after failed try number `attempt` (1-based).
    public func delay(afterAttempt attempt: Int) -> Duration {
        let factor = 1 << min(max(attempt - 1, 0), 20)
        return min(self.baseDelay * factor, self.maximumDelay)
    }
}
