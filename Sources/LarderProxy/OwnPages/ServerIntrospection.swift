import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

/// What a running server shows of itself to the pages about it, and the actions they take
/// (``ProxyIntrospection``): made by `ProxyServer` once it listens (the own origins need the port)
/// and handed to its `pages`. The registries a server does not have (in tests of the pages alone)
/// are nil: the pages then show nothing of them.
public struct ServerIntrospection: ProxyIntrospection {
    private let configuration: ProxyConfiguration
    private let store: Store
    private let statistics: ProxyStatistics
    private let health: UpstreamHealthRegistry
    private let offline: OfflineSwitch
    private let precacheJobs: any PrecacheJobQueue
    private let pageJobs: PageJobLimit?
    private let storeFailures: StoreWriteFailures
    private let offlineMisses: OfflineMisses
    private let browserMisses: OfflineMisses?
    private let appOrigins: AppOriginRegistry?
    private let declaredRequests: DeclaredRequestScheduler?
    private let writeReplayer: WriteReplayer?
    private let secrets: SubstitutedSecrets
    private let originCheck: SameOriginCheck

    /// The introspection of a server with `configuration` (its clock, limits, and the files of
    /// the answered-offline routes and kept `no-store` sites), `store` and these parts;
    /// `ownOrigins` are its own `http` origins, e.g. `http://127.0.0.1:8080`.
    public init(
        configuration: ProxyConfiguration, store: Store, statistics: ProxyStatistics, health: UpstreamHealthRegistry,
        offline: OfflineSwitch,
        precacheJobs: any PrecacheJobQueue, pageJobs: PageJobLimit? = nil, storeFailures: StoreWriteFailures,
        offlineMisses: OfflineMisses, browserMisses: OfflineMisses? = nil, appOrigins: AppOriginRegistry? = nil,
        declaredRequests: DeclaredRequestScheduler? = nil, writeReplayer: WriteReplayer? = nil, secrets: SubstitutedSecrets = .none,
        ownOrigins: Set<String>
    ) {
        self.configuration = configuration
        self.store = store
        self.statistics = statistics
        self.health = health
        self.offline = offline
        self.precacheJobs = precacheJobs
        self.pageJobs = pageJobs
        self.storeFailures = storeFailures
        self.offlineMisses = offlineMisses
        self.browserMisses = browserMisses
        self.appOrigins = appOrigins
        self.declaredRequests = declaredRequests
        self.writeReplayer = writeReplayer
        self.secrets = secrets
        self.originCheck = SameOriginCheck(ownOrigins: ownOrigins)
    }

    public var settings: ProxySettings {
        ProxySettings(
            maxSize: self.configuration.maxSize, queryFilter: self.configuration.queryFilter,
            statusOrigins: self.configuration.statusOrigins, lanReach: self.configuration.lanReach,
            secrets: self.secrets, startedAt: self.statistics.startedAt, recentCapacity: self.statistics.recentCapacity,
            offlineMissCapacity: self.offlineMisses.capacity, answeredOfflineFile: self.configuration.answeredOffline?.path,
            keptNoStoreFile: self.configuration.keptNoStore?.path, writeQueueLimits: self.writeReplayer?.limits,
            pageJobLimit: self.pageJobs?.limit, now: self.configuration.now)
    }

    public func snapshot(now: Date) -> ProxySnapshot {
        let answered = self.configuration.answeredOffline?.current
        let sites = self.configuration.keptNoStore?.current
        return ProxySnapshot(
            answers: self.statistics.counts(),
            recentRequests: self.statistics.recentRequests(),
            hosts: self.health.reported().map { origin, health in
                var report = HostReport(origin: origin, health: health, now: now)
                report.browser = !self.isApp(origin: origin)
                return report
            },
            storeWriteProblem: self.storeFailures.current,
            offlineMisses: self.offlineMisses.snapshot(),
            browserMisses: self.browserMisses?.snapshot(),
            answeredOffline: answered?.entries,
            answeredOfflineProblem: answered?.problem,
            keptNoStore: sites.map {
                ProxySnapshot.NoStoreSites(kept: $0.kept, chosenAt: $0.chosenAt, candidates: $0.candidates, problem: $0.problem)
            },
            pageJobUse: self.pageJobs?.use(),
            writeReplay: self.writeReplayer?.snapshot()
        )
    }

    public var isOffline: Bool {
        self.offline.isOffline
    }

    public func connectivity() -> Connectivity {
        Connectivity(offline: self.offline.isOffline, health: self.health.snapshot(), isApp: self.isApp(origin:))
    }

    /// Whether an app's request went to `origin` (every origin is, without an ``AppOriginRegistry``).
    private func isApp(origin: String) -> Bool {
        self.appOrigins?.isApp(origin: origin) ?? true
    }

    public func precacheJob(_ id: String) -> PrecacheJobStatus<EncodedReport>? {
        self.precacheJobs.status(id)
    }

    public func controlRefusal(for request: OwnPageRequest) -> String? {
        self.originCheck.refusal(for: request)
    }

    public func setOffline(_ isOffline: Bool) {
        self.offline.isOffline = isOffline
    }

    public func forgetOfflineMiss(url: String) {
        self.offlineMisses.forget(url: url)
    }

    public func refreshDeclaredRequest(_ name: String) -> Bool {
        self.declaredRequests?.refreshNow(name) ?? false
    }

    public func retryWrite(id: Int64) {
        self.writeReplayer?.retryNow(id: id)
    }

    public func submitPrecache(lines: [String], source: String, requestedBy origin: String?, reach: UpstreamReach?) async throws
        -> PrecacheSubmission
    {
        try await self.precacheJobs.submit(
            lines: lines, source: source, requestedBy: origin, store: self.store, reach: reach, allowed: { _ in true })
    }

    public func answerOffline(_ entry: AnsweredOffline.Entry) throws -> Bool {
        try self.configuration.answeredOffline?.add(entry) ?? false
    }

    public func stopAnsweringOffline(_ entry: AnsweredOffline.Entry) throws -> Bool {
        try self.configuration.answeredOffline?.remove(entry) ?? false
    }

    public func keepNoStore(origin: String, at now: Date) throws -> Bool {
        try self.configuration.keptNoStore?.keep(origin: origin, at: now) ?? false
    }

    public func stopKeepingNoStore(origin: String) throws -> Bool {
        try self.configuration.keptNoStore?.stopKeeping(origin: origin) ?? false
    }
}
