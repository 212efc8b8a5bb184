import Foundation
import LarderHTTP
import LarderStore

/// Everything `ProxyServer` needs to know, with Larder's defaults.
public struct ProxyConfiguration: Sendable {
    /// The address to listen on (loopback by default).
    public var host: String = "127.0.0.1"
    /// The port to listen on; 0 picks a free one (reported by `ProxyServer.boundPort`).
    public var port: Int = 8080
    /// Start in offline mode: never contact upstream.
    public var offline: Bool = false
    /// Clients besides loopback that may use the proxy.
    public var allowList = ClientAllowList()
    /// Request classification rules: URI length limit, CONNECT ports.
    public var routeRules = RequestRoute.Rules()
    /// Query parameters left out of cache keys.
    public var queryFilter: QueryParameterFilter = .default
    /// How long to wait for an upstream connection (TCP and TLS): short, since a device that is
    /// offline should fall back to the cache quickly.
    public var connectTimeout: Duration = .seconds(3)
    /// How long an upstream transfer may stall before it fails.
    public var idleTimeout: Duration = .seconds(30)
    /// With a usable cached copy, how long to wait for the network's answer before serving the cache
    /// (network-first with a timeout, as Workbox's `networkTimeoutSeconds`).
    public var networkTimeout: Duration = .seconds(3)
    /// Connect-failure back-off per host.
    public var backoff = HostHealth.Policy()
    /// The store's size budget, shown on /dev/offline (nil: none set).
    public var maxSize: Int64?
    /// Bounds on client connections: timeouts and how many may be open.
    public var clientLimits = ClientLimits()
    /// Per-route strategies from the config file; the first route matching a key applies.
    public var routes: [CacheRoute] = []
    /// The routes /dev/offline's **Answer offline** added, after `routes` (set by the proxy for
    /// its cache directory).
    public internal(set) var answeredOffline: AnsweredOfflineRoutes?
    /// The sites whose `no-store` pages the user chose on /dev/offline to keep for offline use,
    /// and those seen sending `no-store` (set by the proxy for its cache directory).
    public internal(set) var keptNoStore: KeptNoStoreRegistry?
    /// Requests to keep fresh and answer the app with when the origin cannot (config `requests`),
    /// run by ``ProxyServer/declaredRequests``.
    public var declaredRequests: [DeclaredRequest] = []
    /// Writes queued while their origin cannot answer, and how they are replayed (config `queue`;
    /// docs/SERVING.md, "Queued writes"), replayed by ``ProxyServer/writeReplayer``.
    public var writeQueue = WriteQueueConfiguration()
    /// What clients on other machines may make Larder reach of the box's own addresses (config
    /// `lan.allowUpstream`; docs/SERVING.md, "A shared box (LAN mode)"): by default none of its
    /// loopback and link-local addresses.
    public var lanReach = UpstreamReach()
    /// Origins whose pages may read `/dev/offline.json` besides those of the precached games and
    /// pages (normalised, e.g. `https://app.example`).
    public var statusOrigins: [String] = []
    /// The endpoints that report a server's health (config `healthChecks`), never answered from the
    /// cache while their origin cannot answer (docs/SERVING.md, "Health checks").
    public var healthChecks: HealthChecks = .default

    /// App shells for navigations with nothing stored while the origin cannot answer (config
    /// `navigationFallback`); the first covering a URL applies.
    public var navigationFallbacks: [NavigationFallback] = []

    /// The first route covering `key`, or nil (the default strategies of docs/SERVING.md apply).
    public func route(for key: CacheKey) -> CacheRoute? {
        self.routes.first { $0.matches(key) } ?? self.answeredOffline?.route(for: key)
    }

    /// The app shell for a navigation to `url`, if one is declared for it.
    public func navigationFallback(for url: HTTPURL, key: CacheKey) -> NavigationFallback? {
        self.navigationFallbacks.first { $0.covers(url, key: key) }
    }

    /// Whether plain hits are answered on the event loop (see `ImmediateHits`); when off, every
    /// request takes the ordinary path, which answers with the same bytes.
    public var immediateHits = true
    /// The one clock the proxy reads the time from: stored answers' ages and freshness, origins'
    /// back-off, queued writes, declared requests, logs and interception certificates (tests
    /// drive it; docs/ARCHITECTURE.md).
    public var now: @Sendable () -> Date = { Date() }

    /// The defaults.
    public init() {}
}
