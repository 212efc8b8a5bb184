import struct Foundation.Date

/// How a declared request (the config's `requests`) has fared: kept by the proxy's scheduler and
/// by `larder precache`, shown on /dev/offline and by `larder status`.
public struct DeclaredRequestRecord: Sendable, Hashable {
    /// The request's name in the config.
    public var name: String
    /// Its method and URL as last sent (placeholders replaced).
    public var method: String
    public var url: String
    /// The key its last answer was stored under (nil before the first success).
    public var key: String?
    public var lastAttempt: Date?
    public var lastSuccess: Date?
    /// The HTTP status of the last answer, if one came.
    public var lastStatus: Int?
    /// Why the last attempt failed (nil when it succeeded).
    public var lastError: String?
    /// Failures since the last success.
    public var consecutiveFailures: Int
    /// When the scheduler runs it next (nil when no scheduler runs it).
    public var nextRun: Date?
    /// The stored answer's body size.
    public var bodySize: Int64?

    /// Creates a record.
    public init(
        name: String,
        method: String,
        url: String,
        key: String? = nil,
        lastAttempt: Date? = nil,
        lastSuccess: Date? = nil,
        lastStatus: Int? = nil,
        lastError: String? = nil,
        consecutiveFailures: Int = 0,
        nextRun: Date? = nil,
        bodySize: Int64? = nil
    ) {
        self.name = name
        self.method = method
        self.url = url
        self.key = key
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.consecutiveFailures = consecutiveFailures
        self.nextRun = nextRun
        self.bodySize = bodySize
    }
}
