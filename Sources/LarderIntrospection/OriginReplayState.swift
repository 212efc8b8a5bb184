import Foundation

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
    /// Whether the last attempt could not reach the origin at all (else it answered with a status
    /// that asks for a retry: a 5xx, 408, 425, 429).
    public var unreachable: Bool

    /// A state.
    public init(
        consecutiveFailures: Int = 0, nextAttempt: Date? = nil, lastError: String? = nil, lastFailure: Date? = nil,
        unreachable: Bool = false
    ) {
        self.consecutiveFailures = consecutiveFailures
        self.nextAttempt = nextAttempt
        self.lastError = lastError
        self.lastFailure = lastFailure
        self.unreachable = unreachable
    }
}
