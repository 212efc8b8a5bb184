import Foundation
import LarderHTTP
import LarderStore
import Logging

/// What serving learns and remembers while the proxy runs, made once where the proxy is assembled
/// (``ProxyServer``) and handed to the types that use them: ``ForwardProxy``, ``ImmediateHits``,
/// each ``ProxyConnection``, the request log and the pages' ``ServerIntrospection``. Each member
/// is a reference, so every holder of a copy sees the same registry.
struct ProxyRegistries: Sendable {
    /// Small bodies kept in memory by content hash.
    let smallBodies = SmallBodyCache()
    /// Freshness of recently served stored heads.
    let freshnessMemo = FreshnessMemo()
    /// What the cache could not answer while the origin could not, for /dev/offline.
    let offlineMisses = OfflineMisses()
    /// The same for the browser's own requests, kept apart so they neither fill nor push out the app's.
    /// Their queries are dropped whole: the browser's updater signs each request with a new one.
    let browserMisses = OfflineMisses(capacity: 50, grouping: .ignoreQuery)
    /// Which requests are the app's and which the browser's own.
    let appOrigins = AppOriginRegistry()
    /// The CORS grants origins gave page origins, for Larder's answers in their place.
    let corsGrants: CORSGrants
    /// The app's own bodies of declared GraphQL requests.
    let learnedQueries: LearnedQueries
    /// Responses that could not be stored, for the log and /dev/offline.
    let storeFailures: StoreWriteFailures
    /// The declared requests' token values, which URLs Larder shows or logs carry only as their
    /// placeholders (docs/SERVING.md, "What is private and where it is kept").
    let shownSecrets: SubstitutedSecrets

    /// The registries of a proxy serving `configuration` over `store`.
    init(store: Store, configuration: ProxyConfiguration, logger: Logger) {
        self.corsGrants = CORSGrants(store: store, logger: logger)
        self.learnedQueries = LearnedQueries(store: store, logger: logger)
        self.storeFailures = StoreWriteFailures(logger: logger, now: configuration.now)
        self.shownSecrets = SubstitutedSecrets(configuration.declaredRequests, environment: ProcessInfo.processInfo.environment)
    }

    /// Where offline misses go: ``offlineMisses`` or ``browserMisses``.
    func offlineMissLog(now: @escaping @Sendable () -> Date) -> OfflineMissLog {
        OfflineMissLog(appOrigins: self.appOrigins, app: self.offlineMisses, browser: self.browserMisses, now: now)
    }
}

extension ProxyConfiguration {
    /// This configuration with the routes and registries the user set on /dev/offline, kept in the
    /// cache directory `directory`: the routes answered offline and the sites whose `no-store`
    /// pages are kept. Made once, where the proxy is assembled, so every part of it reads the one
    /// configuration.
    func keepingUserChoices(in directory: String, logger: Logger) -> ProxyConfiguration {
        var configuration = self
        configuration.answeredOffline = AnsweredOfflineRoutes(directory: directory, logger: logger)
        configuration.keptNoStore = KeptNoStoreRegistry(directory: directory, logger: logger)
        return configuration
    }
}
