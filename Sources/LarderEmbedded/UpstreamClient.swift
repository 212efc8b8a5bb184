import LarderPrecache
import LarderUpstream
import Logging
import ServiceLifecycle
#if Curl
    import LarderCurl
#endif

/// How a Larder reaches origins: the ``Upstream`` that fetches objects (pages, files, precache
/// downloads), the connector for streams (`CONNECT` tunnels and WebSockets), and the service that
/// shuts the client down once the proxy has stopped.
///
/// Everything libcurl-specific stays behind ``Upstream``: a client built on URLSession (or any
/// HTTP client that streams bodies and follows no redirects) plugs in here, and the proxy, the
/// precache runner and the store never know which it is.
public struct UpstreamClient: Sendable {
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
        upstream: any Upstream, connector: UpstreamConnector, service: (any Service)?,
        precache: (upstream: any Upstream, service: (any Service)?)? = nil
    ) {
        self.upstream = upstream
        self.connector = connector
        self.service = service
        self.precache = precache
    }

    #if Curl
        /// The libcurl client `larder serve` uses, a second one at the lowest priority for precache
        /// jobs (``BackgroundExecutor``), and a connector trusting what they trust.
        ///
        /// - Throws: ``UpstreamConfigurationError`` when the configuration is unusable, e.g. an
        ///   additional CA file that cannot be read.
        public static func curl(configuration: UpstreamConfiguration, logger: Logger) throws -> UpstreamClient {
            let upstream = try CurlUpstream(configuration: configuration, logger: logger)
            var background = configuration
            background.threadSetUp = BackgroundExecutor.lowerCurrentThreadPriority
            let precacheUpstream = try CurlUpstream(configuration: background, logger: logger)
            let connector = try UpstreamConnector(trust: configuration.trust, proxy: configuration.proxy, logger: logger)
            return UpstreamClient(
                upstream: upstream, connector: connector, service: CurlUpstreamService(upstream: upstream),
                precache: (precacheUpstream, CurlUpstreamService(upstream: precacheUpstream))
            )
        }
    #endif
}
