import Foundation
import LarderHTTP

/// What pages about a running proxy (LarderDevOffline's /dev/offline, its JSON twins, controls and
/// `/metrics`) read of it and may change in it, so that they know no proxy type: what stays while
/// it runs (``settings``), its state at one moment (``snapshot(now:)``), and the controls' actions.
/// The proxy conforms (`ServerIntrospection`, Sources/LarderProxy/OwnPages/ServerIntrospection.swift)
/// and hands one to the pages it is given (`ProxyServer`'s `pages`).
public protocol ProxyIntrospection: Sendable {
    /// What stays while the proxy runs.
    var settings: ProxySettings { get }
    /// The proxy's state at `now`.
    func snapshot(now: Date) -> ProxySnapshot
    /// Whether offline mode is on.
    var isOffline: Bool { get }
    /// What the header badge of the pages says now.
    func connectivity() -> Connectivity
    /// A precache job's state, or nil for an unknown id.
    func precacheJob(_ id: String) -> PrecacheJobStatus<EncodedReport>?
    /// Why the control `request` posts is refused as not coming from the proxy's own pages (a
    /// cross-site request forgery), or nil when it does.
    func controlRefusal(for request: OwnPageRequest) -> String?

    /// Turns offline mode on or off.
    func setOffline(_ isOffline: Bool)
    /// Forgets the offline misses of `url` (its endpoint's record), once it is added to precache.
    func forgetOfflineMiss(url: String)
    /// Runs the declared request `name` now; false when there is none of that name.
    func refreshDeclaredRequest(_ name: String) -> Bool
    /// Replays the queued write `id` at once, whatever its origin's back-off.
    func retryWrite(id: Int64)
    /// Queues a precache job for `lines` (a games list's lines) with the extra URLs the user added,
    /// asked for from `source` by a page on `origin` (nil: the box's own user); its fetches reach
    /// only what `reach` allows (nil: anything).
    ///
    /// - Throws: when the extra URLs cannot be read from the store.
    func submitPrecache(lines: [String], source: String, requestedBy origin: String?, reach: UpstreamReach?) async throws
        -> PrecacheSubmission
    /// Answers `entry`'s requests offline (``ProxySettings/answeredOfflineFile``); false when it
    /// already was.
    ///
    /// - Throws: when the file cannot be written.
    func answerOffline(_ entry: AnsweredOffline.Entry) throws -> Bool
    /// Stops answering `entry`'s requests offline; false when they were not.
    ///
    /// - Throws: when the file cannot be written.
    func stopAnsweringOffline(_ entry: AnsweredOffline.Entry) throws -> Bool
    /// Keeps `origin`'s `no-store` pages from its next online visit, chosen at `now`
    /// (``ProxySettings/keptNoStoreFile``); false when they already were.
    ///
    /// - Throws: when the file cannot be written.
    func keepNoStore(origin: String, at now: Date) throws -> Bool
    /// Stops keeping `origin`'s `no-store` pages; false when they were not kept.
    ///
    /// - Throws: when the file cannot be written.
    func stopKeepingNoStore(origin: String) throws -> Bool
}

/// What stays while a proxy runs, as its pages read it (``ProxyIntrospection``).
public struct ProxySettings: Sendable {
    /// The store's size budget in bytes, if any.
    public var maxSize: Int64?
    /// The query parameters cache keys leave out.
    public var queryFilter: QueryParameterFilter
    /// Origins whose pages may read `/dev/offline.json` (the config file's `statusOrigins`).
    public var statusOrigins: [String]
    /// What clients on other machines may have Larder fetch of the box's own addresses (config
    /// `lan.allowUpstream`).
    public var lanReach: UpstreamReach
    /// The declared requests' token values, to be shown as their placeholders.
    public var secrets: SubstitutedSecrets
    /// When the proxy started counting answers.
    public var startedAt: Date
    /// How many recent requests ``ProxySnapshot/recentRequests`` keeps.
    public var recentCapacity: Int
    /// How many endpoints ``ProxySnapshot/offlineMisses`` keeps.
    public var offlineMissCapacity: Int
    /// The file of the routes **Answer offline** adds; nil: the proxy has none.
    public var answeredOfflineFile: String?
    /// The file of the sites whose `no-store` pages are kept; nil: the proxy keeps none.
    public var keptNoStoreFile: String?
    /// The write queue's limits; nil: no write replayer.
    public var writeQueueLimits: WriteQueueLimits?
    /// The limits on web pages' precache jobs; nil: none are counted.
    public var pageJobLimit: PagePrecacheLimit?
    /// The proxy's clock.
    public var now: @Sendable () -> Date

    /// Settings.
    public init(
        maxSize: Int64?, queryFilter: QueryParameterFilter, statusOrigins: [String], lanReach: UpstreamReach,
        secrets: SubstitutedSecrets, startedAt: Date, recentCapacity: Int, offlineMissCapacity: Int, answeredOfflineFile: String?,
        keptNoStoreFile: String?, writeQueueLimits: WriteQueueLimits?, pageJobLimit: PagePrecacheLimit?, now: @escaping @Sendable () -> Date
    ) {
        self.maxSize = maxSize
        self.queryFilter = queryFilter
        self.statusOrigins = statusOrigins
        self.lanReach = lanReach
        self.secrets = secrets
        self.startedAt = startedAt
        self.recentCapacity = recentCapacity
        self.offlineMissCapacity = offlineMissCapacity
        self.answeredOfflineFile = answeredOfflineFile
        self.keptNoStoreFile = keptNoStoreFile
        self.writeQueueLimits = writeQueueLimits
        self.pageJobLimit = pageJobLimit
        self.now = now
    }
}

/// A running proxy's state at one moment, as its pages read it (``ProxyIntrospection``).
public struct ProxySnapshot: Sendable {
    /// The sites whose `no-store` pages are kept, and those seen sending `no-store`.
    public struct NoStoreSites: Sendable {
        /// The sites kept, by origin.
        public var kept: [String]
        /// When each kept site was chosen, when known.
        public var chosenAt: [String: Date]
        /// The sites seen sending `no-store`.
        public var candidates: [NoStoreSightings.Site]
        /// Why the file could not be read, if it could not.
        public var problem: String?

        /// Sites.
        public init(kept: [String], chosenAt: [String: Date], candidates: [NoStoreSightings.Site], problem: String?) {
            self.kept = kept
            self.chosenAt = chosenAt
            self.candidates = candidates
            self.problem = problem
        }
    }

    /// Answers so far by outcome.
    public var answers: [RequestOutcome: Int]
    /// The most recent answers, newest first.
    public var recentRequests: [RecentRequest]
    /// The origins whose health is reported (failing ones first), their `browser` set.
    public var hosts: [HostReport]
    /// Failures to store responses since the last success, if any.
    public var storeWriteProblem: StoreWriteProblem?
    /// What the cache could not answer while the origin could not (the app's requests), newest first.
    public var offlineMisses: [OfflineMiss]
    /// The offline misses of the browser's own requests, kept apart; nil: they are not told apart.
    public var browserMisses: [OfflineMiss]?
    /// The routes **Answer offline** added, oldest first; nil without ``ProxySettings/answeredOfflineFile``.
    public var answeredOffline: [AnsweredOffline.Entry]?
    /// Why the file of the routes **Answer offline** adds could not be read, if it could not.
    public var answeredOfflineProblem: String?
    /// The sites whose `no-store` pages are kept; nil without ``ProxySettings/keptNoStoreFile``.
    public var keptNoStore: NoStoreSites?
    /// Each page origin's use of the limits on its precache jobs; nil without ``ProxySettings/pageJobLimit``.
    public var pageJobUse: [PageJobUse]?
    /// Where the replay of each origin's queued writes stands; nil without a write replayer.
    public var writeReplay: [String: OriginReplayState]?

    /// A snapshot.
    public init(
        answers: [RequestOutcome: Int], recentRequests: [RecentRequest], hosts: [HostReport],
        storeWriteProblem: StoreWriteProblem?, offlineMisses: [OfflineMiss], browserMisses: [OfflineMiss]?,
        answeredOffline: [AnsweredOffline.Entry]?, answeredOfflineProblem: String?, keptNoStore: NoStoreSites?,
        pageJobUse: [PageJobUse]?, writeReplay: [String: OriginReplayState]?
    ) {
        self.answers = answers
        self.recentRequests = recentRequests
        self.hosts = hosts
        self.storeWriteProblem = storeWriteProblem
        self.offlineMisses = offlineMisses
        self.browserMisses = browserMisses
        self.answeredOffline = answeredOffline
        self.answeredOfflineProblem = answeredOfflineProblem
        self.keptNoStore = keptNoStore
        self.pageJobUse = pageJobUse
        self.writeReplay = writeReplay
    }
}
