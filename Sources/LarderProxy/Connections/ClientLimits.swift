import LarderHTTP

/// Bounds on client connections, so no client can hold the proxy's sockets or descriptors
/// (`larder serve --header-timeout`, `--idle-timeout`, `--tunnel-idle-timeout`,
/// `--max-connections`, `--max-connections-per-client`).
public struct ClientLimits: Sendable, Hashable {
    /// How long a request head may take to arrive: from the connection's start for its first
    /// request, from the request's first byte for later ones (a slowloris is closed after this).
    public var headerTimeout: Duration = .seconds(30)
    /// How long a kept-alive connection may wait, with no byte of a next request, before it closes.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a tunnel or WebSocket may pass no byte either way before it closes; once either side
    /// has finished, the other gets ``halfClosedTimeout``.
    public var tunnelIdleTimeout: Duration = .seconds(600)
    /// How long a tunnel stays open after one side finished sending.
    public var halfClosedTimeout: Duration = .seconds(30)
    /// Connections open at once; nil: from the file-descriptor limit (``defaultMaximumConnections(descriptorLimit:)``).
    public var maximumConnections: Int?
    /// Connections one client address may hold at once.
    public var maximumConnectionsPerClient: Int = 256

    /// The defaults.
    public init() {}

    /// Connections allowed with `descriptorLimit` descriptors: each may take a second one upstream
    /// (and a body file), and the index, curl and the CA need some of their own.
    public static func defaultMaximumConnections(descriptorLimit: Int) -> Int {
        min(16_384, max(16, (descriptorLimit - 64) / 2))
    }
}
