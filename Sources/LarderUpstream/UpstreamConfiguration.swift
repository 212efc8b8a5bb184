import LarderHTTP

/// Settings shared by all transfers of one upstream client (`CurlUpstream`, ``NIOUpstream``).
public struct UpstreamConfiguration: Sendable {
    /// The TLS servers trusted.
    public var trust: UpstreamTrust

    /// At most this many connections to one host (scheme, host and port); 0 is no limit.
    /// Transfers beyond the limit wait for a connection.
    public var maxConnectionsPerHost: Int

    /// At most this many open connections in total; 0 is no limit.
    public var maxTotalConnections: Int

    /// The `User-Agent` sent when a request has none of its own; `nil` sends none.
    public var userAgent: String?

    /// Runs first on each thread the client starts for itself (libcurl's one thread, the NIO
    /// client's event loops): the in-proxy precache's client lowers the threads' CPU priority
    /// there, so its transfers yield to the proxy's.
    public var threadSetUp: (@Sendable () -> Void)?

    /// Which requests go through a parent proxy; by default none (callers resolve
    /// `--upstream-proxy` and the environment with ``UpstreamProxy/resolve(choice:environment:)``).
    public var proxy: UpstreamProxy

    /// Creates a configuration.
    public init(
        trust: UpstreamTrust = UpstreamTrust(),
        maxConnectionsPerHost: Int = 0,
        maxTotalConnections: Int = 0,
        userAgent: String? = nil,
        threadSetUp: (@Sendable () -> Void)? = nil,
        proxy: UpstreamProxy = .direct
    ) {
        self.proxy = proxy
        self.trust = trust
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
        self.userAgent = userAgent
        self.threadSetUp = threadSetUp
    }
}
