import LarderHTTP
import LarderStore

/// What a running server holds that pages about it read and change (``OwnPageResponder``): made
/// by `ProxyServer` once it listens (the own origins need the port) and handed to its `pages`.
public struct OwnPageContext: Sendable {
    /// The server's configuration (its clock is `configuration.now`).
    public var configuration: ProxyConfiguration
    /// The cache.
    public var store: Store
    /// Answers by outcome and the most recent requests.
    public var statistics: ProxyStatistics
    /// Upstream health per origin.
    public var health: UpstreamHealthRegistry
    /// The offline mode switch.
    public var offline: OfflineSwitch
    /// The precache jobs the pages start and follow.
    public var precacheJobs: any PrecacheJobQueue
    /// Responses the proxy could not store.
    public var storeFailures: StoreWriteFailures
    /// What the cache could not answer while the origin could not (the app's requests).
    public var offlineMisses: OfflineMisses
    /// The offline misses of the browser's own requests, kept apart.
    public var browserMisses: OfflineMisses
    /// Which origins the app's requests went to.
    public var appOrigins: AppOriginRegistry
    /// The declared requests' scheduler.
    public var declaredRequests: DeclaredRequestScheduler
    /// The write queue's replayer.
    public var writeReplayer: WriteReplayer
    /// The declared requests' token values, to be shown as their placeholders.
    public var secrets: SubstitutedSecrets
    /// The proxy's own `http` origins, e.g. `http://127.0.0.1:8080` (for ``SameOriginCheck``).
    public var ownOrigins: Set<String>
}
