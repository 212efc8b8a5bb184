import Foundation

/// One upstream host's health.
public struct HostReport: Sendable, Codable, Hashable {
    /// The origin (`scheme://host[:port]`): back-off is kept per origin.
    public var origin: String
    /// The origin's host name.
    public var host: String
    /// `ok`, `failing` (connects failed, still trying) or `backing-off` (answering from cache at once).
    public var state: String
    /// Connect failures since the last answer.
    public var consecutiveFailures: Int
    /// The last failure.
    public var lastError: String?
    /// Until when requests skip the network, while backing off.
    public var backoffUntil: Date?
    /// When the host last answered.
    public var lastSuccess: Date?
    /// Whether only the browser's own requests went to it (the proxy's `AppOriginRegistry`): shown apart from the
    /// app's hosts, and never counted as an unreachable origin of the app's.
    public var browser: Bool?

    /// A report of `origin`'s health (the proxy makes it from its own:
    /// Sources/LarderProxy/Health/HostHealth+Reports.swift).
    public init(
        origin: String, host: String, state: String, consecutiveFailures: Int, lastError: String?, backoffUntil: Date?,
        lastSuccess: Date?, browser: Bool?
    ) {
        self.origin = origin
        self.host = host
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.lastError = lastError
        self.backoffUntil = backoffUntil
        self.lastSuccess = lastSuccess
        self.browser = browser
    }
}
