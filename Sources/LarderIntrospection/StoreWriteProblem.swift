import Foundation

/// Failures to store responses since the last success, as /dev/offline shows them.
public struct StoreWriteProblem: Sendable, Codable, Hashable {
    /// The first failure since the last success.
    public var since: Date
    /// How many responses were not stored since then.
    public var failures: Int
    /// The latest error.
    public var lastError: String

    /// A problem.
    public init(since: Date, failures: Int, lastError: String) {
        self.since = since
        self.failures = failures
        self.lastError = lastError
    }
}
