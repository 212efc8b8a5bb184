import LarderPrecache
import LarderUpstream
import Logging
import ServiceLifecycle

/// How a Larder reaches origins: the ``Upstream`` that fetches objects (pages, files, precache
/// downloads), the connector for streams (`CONNECT` tunnels and WebSockets), and the service that
/// shuts the client down once the proxy has stopped.
///
/// Everything client-specific stays behind ``Upstream``: ``make(_:configuration:logger:)`` makes
/// libcurl's or SwiftNIO's (``Kind``), and a client built on URLSession (or any
/// HTTP client that streams bodies and follows no redirects) plugs in here, and the proxy, the
/// precache runner and the store never know which it is.
public struct UpstreamClient: Sendable {
    /// Which client this is, nil for one the app made itself; the status pages name it.
    public var kind: Kind?
    /// Fetches objects; its failures fall back to the cache as the proxy's rules say.
    public var upstream: any Upstream
    /// Opens tunnels and WebSocket connections (NIO, with the same TLS trust as ``upstream``).
    public var connector: UpstreamConnector
    /// Run beside the proxy and stopped after it, to shut ``upstream`` down; nil when nothing
    /// needs shutting down.
    public var service: (any Service)?
    /// Fetches for the precache jobs a running Larder starts, when not ``upstream``, with the
    /// service that shuts it down: the libcurl client gives them a curl thread of their own at the
    /// lowest CPU priority, so their transfers yield to the proxy's.
    public var precache: (upstream: any Upstream, service: (any Service)?)?

    /// A client from its parts; precache jobs fetch through `precache` when given, else `upstream`.
    public init(
        kind: Kind? = nil, upstream: any Upstream, connector: UpstreamConnector, service: (any Service)?,
        precache: (upstream: any Upstream, service: (any Service)?)? = nil
    ) {
        self.kind = kind
        self.upstream = upstream
        self.connector = connector
        self.service = service
        self.precache = precache
    }
}
