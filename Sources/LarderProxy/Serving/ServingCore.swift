import LarderHTTP
import LarderStore
import LarderUpstream
import Logging

/// The parts that answer requests, assembled one way for the server (``ProxyServer``), the micro
/// benchmarks' hit path (``BenchmarkHitPath``) and the tests that drive the hit paths without a
/// socket: the one configuration (with the user's choices kept in the cache directory), the
/// registries, the offline switch, upstream health, usage and the size budget, and the
/// ``ForwardProxy`` over them; ``immediateHits(own:rules:reach:log:prepared:)`` makes a
/// connection's immediate path over the same parts.
struct ServingCore: Sendable {
    let store: Store
    let configuration: ProxyConfiguration
    let registries: ProxyRegistries
    let offline: OfflineSwitch
    let health: UpstreamHealthRegistry
    /// The proxy's upstream, recording what each exchange shows of its origin's health (the
    /// precache jobs' exchanges do not count for back-off).
    let upstream: any Upstream
    let usage: UsageRecorder
    let budget: StoreBudget
    let proxy: ForwardProxy

    /// The parts over `store`, fetching from `upstream` as `configuration` says.
    init(store: Store, upstream: any Upstream, configuration: ProxyConfiguration, background: BackgroundWork, logger: Logger) {
        let configuration = configuration.keepingUserChoices(in: store.directory, logger: logger)
        self.store = store
        self.configuration = configuration
        self.registries = ProxyRegistries(store: store, configuration: configuration, logger: logger)
        self.offline = OfflineSwitch(configuration.offline)
        self.health = UpstreamHealthRegistry(policy: configuration.backoff, now: configuration.now)
        self.upstream = HealthRecordingUpstream(base: upstream, health: self.health, rule: .exchange)
        self.usage = UsageRecorder(store: store, logger: logger)
        self.budget = StoreBudget(store: store, budget: configuration.maxSize, usage: self.usage, logger: logger)
        self.proxy = ForwardProxy(
            store: store,
            upstream: self.upstream,
            health: self.health,
            offline: self.offline,
            configuration: configuration,
            registries: self.registries,
            usage: self.usage,
            budget: self.budget,
            background: background,
            logger: logger
        )
    }

    /// A connection's immediate path: plain hits answered on its event loop from `prepared`.
    func immediateHits(
        own: RequestRoute.OwnAuthorities, rules: RequestRoute.Rules, reach: UpstreamReach?, log: RequestLog, prepared: PreparedHits
    ) -> ImmediateHits {
        ImmediateHits(
            store: self.store,
            configuration: self.configuration,
            offline: self.offline,
            usage: self.usage,
            smallBodies: self.registries.smallBodies,
            freshnessMemo: self.registries.freshnessMemo,
            own: own,
            rules: rules,
            reach: reach,
            log: log,
            prepared: prepared
        )
    }
}
