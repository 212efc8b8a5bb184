import Foundation
import LarderPrecache
import LarderProxy
import LarderUpstream
// `UpstreamClient` is part of configuring a Larder: an app that imports LarderEmbedded has it.
@_exported import LarderUpstreamClient
import Logging

extension Larder {
    /// What a host app sets before ``Larder/start()``: where the cache lives, where Larder listens,
    /// how it reaches origins, and the proxy's and precache's own settings.
    ///
    /// The defaults are those of `larder serve`, except the port: 0, a free one chosen at start.
    public struct Configuration: Sendable {
        /// The cache directory, created if missing (an app's caches folder, for instance). Two
        /// Larders, or a Larder and a `larder precache`, may share one.
        public var cacheDirectory: String

        /// The proxy's settings: `host` (loopback, `127.0.0.1`, by default), `port` (0 here: a free
        /// one), `offline`, `maxSize` (2 GiB here), routes, timeouts and client limits. A host
        /// other than loopback needs `allowList` networks: Larder is never an open proxy.
        public var proxy = ProxyConfiguration()

        /// How precache jobs fetch: concurrency, per-host politeness, excludes, retries. The query
        /// filter is the proxy's (``proxy``), so both key URLs alike.
        public var precache = PrecacheOptions()

        /// Which HTTP client fetches from origins. By default the one `LARDER_UPSTREAM` names, as
        /// for `larder serve` (so that one variable runs a whole test suite on either), else
        /// libcurl where it is linked (the `Curl` trait), else AsyncHTTPClient on SwiftNIO, which
        /// is what an iOS or Android app has.
        public var upstreamClient =
            (try? UpstreamClient.Kind.fromEnvironment(ProcessInfo.processInfo.environment)) ?? UpstreamClient.Kind.preferred

        /// What ``upstreamClient`` trusts (the system's CA roots, and more) and whether it goes
        /// through a parent proxy.
        public var upstreamConfiguration = UpstreamConfiguration()

        /// Makes the upstream client when Larder starts (again at each start), for an app that
        /// brings its own (URLSession on Apple platforms, docs/EMBEDDING.md); nil, the default,
        /// makes ``upstreamClient`` with ``upstreamConfiguration``.
        public var upstream: (@Sendable (_ logger: Logger) throws -> UpstreamClient)?

        /// Whether HTTPS is intercepted (and so cached) with certificates from Larder's local CA,
        /// kept in `<cacheDirectory>/ca/`; when false, every `CONNECT` is tunnelled untouched.
        public var interceptsHTTPS = true

        /// Hosts (globs such as `*.apple.com`) whose HTTPS is tunnelled untouched even when
        /// intercepting, for apps that pin certificates.
        public var tunnelHosts: [String] = []

        /// Threads answering clients; nil is half the cores, at least one.
        public var eventLoops: Int?

        /// How long ``Larder/stop()`` lets in-flight responses finish before they are cut.
        public var shutdownGrace: Duration = .seconds(10)

        /// Whether SIGINT and SIGTERM stop Larder gracefully, as they stop `larder serve`. Off for
        /// an app, which owns its signals.
        public var stopsOnTerminationSignals = false

        /// Where Larder logs (access lines at `info`).
        public var logger = Logger(label: "larder")

        /// A configuration for `cacheDirectory`, listening on `host` (loopback by default) at `port`
        /// (0: a free port, returned by ``Larder/start()``), fetching with ``upstreamClient``
        /// trusting `upstreamTrust`.
        public init(cacheDirectory: String, host: String = "127.0.0.1", port: Int = 0, upstreamTrust: UpstreamTrust = UpstreamTrust()) {
            self.cacheDirectory = cacheDirectory
            self.proxy.host = host
            self.proxy.port = port
            self.proxy.maxSize = Larder.defaultMaximumSize
            self.upstreamConfiguration.trust = upstreamTrust
        }
    }

    /// The store budget unless one is set: 2 GiB.
    public static let defaultMaximumSize: Int64 = 2 << 30
}
