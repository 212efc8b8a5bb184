import LarderHTTP
import LarderIntrospection
import LarderProxy
import LarderStore

/// A running Larder at one moment, from ``Larder/status()``.
public struct LarderStatus: Sendable {
    /// The address listened on, e.g. `127.0.0.1`.
    public var host: String
    /// The port listened on (the one chosen when the configuration asked for 0).
    public var port: Int
    /// The cache directory, absolute.
    public var cacheDirectory: String
    /// Whether Larder answers from the cache only, never contacting origins.
    public var offline: Bool
    /// What the cache holds: entries, distinct bodies and their bytes, precached entries.
    public var store: StoreStatistics
    /// Answers since this start, by outcome (hit, miss, stale, offline miss, error, bypass).
    public var answers: [ProxyStatistics.Outcome: Int]
    /// The local CA's certificate (PEM) that intercepted HTTPS is signed with, for the app to
    /// trust; nil when HTTPS is not intercepted.
    public var certificateAuthorityPath: String?

    /// The proxy's address as a URL, e.g. `http://127.0.0.1:53122`.
    public var proxyURL: String {
        "http://\(HTTPURL.bracketed(host: self.host)):\(self.port)"
    }
}
