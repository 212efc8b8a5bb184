import LarderHTTP
import LarderStore

/// What a running server holds that pages about it read and change (``OwnPageResponder``): made
/// by `ProxyServer` once it listens (the own origins need the port) and handed to its `pages`.
public struct OwnPageContext: Sendable {
    /// The server's configuration (its clock is `configuration.now`).
    public let configuration: ProxyConfiguration
    /// The cache.
    public let store: Store
    /// Answers by outcome and the most recent requests.
    public let statistics: ProxyStatistics
    /// Upstream health per origin.
    public let health: UpstreamHealthRegistry
    /// The offline mode switch.
    public let offline: OfflineSwitch
    /// The precache jobs the pages start and follow.
    public let precacheJobs: any PrecacheJobQueue
    /// The limits on the precache jobs web pages ask for, and each page origin's use of them.
    public let pageJobs: PageJobLimit
    /// Responses the proxy could not store.
    public let storeFailures: StoreWriteFailures
    /// What the cache could not answer while the origin could not (the app's requests).
    public let offlineMisses: OfflineMisses
    /// The offline misses of the browser's own requests, kept apart.
    public let browserMisses: OfflineMisses
    /// Which origins the app's requests went to.
    public let appOrigins: AppOriginRegistry
    /// The declared requests' scheduler.
    public let declaredRequests: DeclaredRequestScheduler
    /// The write queue's replayer.
    public let writeReplayer: WriteReplayer
    /// The declared requests' token values, to be shown as their placeholders.
    public let secrets: SubstitutedSecrets
    /// The proxy's own `http` origins, e.g. `http://127.0.0.1:8080` (for ``SameOriginCheck``).
    public let ownOrigins: Set<String>
}
