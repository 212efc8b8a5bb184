import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

/// What /dev/offline shows: `/dev/offline.json` answers it, the HTML page renders it, and
/// `larder status --json` prints it (there without the parts only a running proxy knows).
public struct OfflineReport: Sendable, Codable {
    /// When the report was made.
    public var generatedAt: Date
    /// The cache directory the store lives in.
    public var cacheDirectory: String
    /// Whether offline mode is on; nil when the report was read from the store alone.
    public var offline: Bool?
    /// When the proxy started counting; nil without a proxy.
    public var startedAt: Date?
    /// Entries, bytes and the size budget.
    public var store: StoreReport
    /// Answers since the proxy started; nil without a proxy.
    public var requests: RequestCounts?
    /// The HTTP client the proxy fetches from origins with, e.g. `curl (libcurl)` or
    /// `nio (AsyncHTTPClient)` (`larder serve --upstream`); nil without a proxy.
    public var upstreamClient: String?
    /// Health of the upstream hosts the proxy has talked to, as many as it reports
    /// (``ProxySnapshot/hosts``: at most 100, failing first, then the most recently used); nil
    /// without a proxy.
    public var upstream: [HostReport]?
    /// What the header badge says: offline mode, the app's origins that cannot be reached, or
    /// online; nil without a proxy.
    public var connectivity: Connectivity?
    /// The reads sent as POST added with **Answer offline**; nil without a proxy.
    public var answeredOffline: AnsweredOfflineReport?
    /// The sites whose `no-store` pages are kept for offline use, and those seen sending
    /// `no-store`; nil without a proxy.
    public var keptNoStore: KeptNoStoreReport?
    /// Every game, in games.txt order.
    public var games: [GameReport]
    /// Every page games.txt listed.
    public var pages: [PageReport]
    /// The dated series (nil from a proxy that predates them).
    public var series: [SeriesReport]?
    /// The URLs added to precache from the offline misses, the first added first.
    public var extraURLs: [ExtraURLReport]
    /// The declared requests (the config's `requests`) and how they fared, by name (optional
    /// so that `larder status` reads the report of a proxy older than them).
    public var declaredRequests: [DeclaredRequestReport]?
    /// Writes kept while their origin could not take them, per origin (optional, as above).
    public var writeQueue: WriteQueueReport?
    /// Requests the cache could not answer while the origin could not; nil without a proxy.
    public var offlineMisses: OfflineMissesReport?
    /// The most recent answers, newest first; nil without a proxy.
    public var recentRequests: [RecentRequest]?
    /// The first page of entries, most recently stored first; nil in `larder status`.
    public var entries: EntryListReport?
    /// Responses the proxy could not store (a full disk, say) since it last stored one; nil when
    /// storing works, or without a proxy.
    public var storeWriteFailures: StoreWriteFailuresReport?
    /// What web pages may make Larder precache, and what each page origin did in the past hour;
    /// nil without a proxy.
    public var pageJobs: PageJobsReport?

    /// Creates a report; the parts only a running proxy knows default to nil.
    public init(
        generatedAt: Date,
        cacheDirectory: String,
        offline: Bool? = nil,
        startedAt: Date? = nil,
        store: StoreReport,
        requests: RequestCounts? = nil,
        upstream: [HostReport]? = nil,
        games: [GameReport],
        pages: [PageReport],
        extraURLs: [ExtraURLReport] = [],
        declaredRequests: [DeclaredRequestReport]? = nil,
        writeQueue: WriteQueueReport? = nil,
        recentRequests: [RecentRequest]? = nil,
        entries: EntryListReport? = nil
    ) {
        self.generatedAt = generatedAt
        self.cacheDirectory = cacheDirectory
        self.offline = offline
        self.startedAt = startedAt
        self.store = store
        self.requests = requests
        self.upstream = upstream
        self.games = games
        self.pages = pages
        self.extraURLs = extraURLs
        self.declaredRequests = declaredRequests
        self.writeQueue = writeQueue
        self.recentRequests = recentRequests
        self.entries = entries
    }

    /// Reads the parts of the report that the store holds: totals, games with their first missing
    /// files, pages, series. Costs one read per game record and page record (pages are checked against the
    /// store), the days of each series, plus the file list of each game
    /// that is partial or failed and lists at most ``missingListLimit`` files: nothing in proportion
    /// to the number of entries.
    ///
    /// Each game's page and each cached page is checked for same-origin scripts and styles it
    /// names that are not stored (`subresources`, which reads a page body once per process).
    public static func read(
        from store: Store, maxSize: Int64?, now: Date, subresources: PageSubresourceCheck = PageSubresourceCheck()
    ) async throws -> OfflineReport {
        let totals = try await store.totals()
        var games: [GameReport] = []
        for record in try await store.games() {
            var missing: [GameFileReport] = []
            if record.state == .partial || record.state == .failed, record.filesListed <= Self.missingListLimit {
                missing = try await store.gameFiles(slug: record.slug)
                    .filter { $0.state != .cached }
                    .prefix(Self.missingShown)
                    .map { GameFileReport($0) }
            }
            var game = GameReport(record, missing: missing)
            try await Self.checkPage(of: &game, record: record, in: store, subresources: subresources)
            games.append(game)
        }
        let pages = try await Self.pages(from: store, subresources: subresources)
        var report = OfflineReport(
            generatedAt: now,
            cacheDirectory: store.directory,
            store: StoreReport(totals: totals, maxSize: maxSize),
            games: games,
            pages: pages,
            extraURLs: try await Self.extraURLs(from: store, pages: pages),
            declaredRequests: try await Self.declaredRequests(from: store, now: now),
            writeQueue: try await WriteQueueReport.read(from: store, now: now)
        )
        report.series = try await SeriesReport.read(from: store, now: now)
        return report
    }

    /// Marks `game` not ready when its stored page (its recorded page URL, else the root's `/` or
    /// `/index.html`) names same-origin scripts or styles that are not stored.
    static func checkPage(of game: inout GameReport, record: GameRecord, in store: Store, subresources: PageSubresourceCheck) async throws {
        for page in record.pageURL.map({ [$0] }) ?? [record.root + "/", record.root + "/index.html"] {
            let unstored = try await subresources.unstored(byPageAt: page, in: store)
            if !unstored.isEmpty {
                game.add(unstoredByPage: unstored)
                return
            }
        }
    }

    /// Every declared request's record, with the body learned from the app for it.
    static func declaredRequests(from store: Store, now: Date) async throws -> [DeclaredRequestReport] {
        let learned = try await store.learnedBodies()
        return try await store.declaredRequests().map { DeclaredRequestReport($0, learned: learned[$0.name], now: now) }
    }

    /// Every recorded page, checked against the store (one lookup per page record): a purged page
    /// must not show as cached.
    static func pages(from store: Store, subresources: PageSubresourceCheck) async throws -> [PageReport] {
        let records = try await store.pages()
        let stored = try await store.storedStates(for: records.filter { $0.state == .cached }.map(\.key))
        var pages: [PageReport] = []
        for record in records {
            var page = PageReport(record, isStored: stored[record.key] != nil)
            if page.isCached {
                page.add(unstoredSubresources: try await subresources.unstored(byPageAt: record.url, in: store))
            }
            pages.append(page)
        }
        return pages
    }

    /// Every extra URL, with its state as one of `pages` (extra URLs are precached as pages).
    static func extraURLs(from store: Store, pages: [PageReport]) async throws -> [ExtraURLReport] {
        let byURL = Dictionary(pages.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        return try await store.extraURLs().map { ExtraURLReport($0, page: byURL[$0.url]) }
    }

    /// How many missing files a game shows in the overview.
    public static let missingShown = 5
    /// Games listing more files than this show only counts in the overview (their detail page lists all).
    public static let missingListLimit = 2000

    /// Games that are ready offline, and games that could be (all but skipped ones).
    public var readyCounts: (ready: Int, wanted: Int) {
        (self.games.filter(\.ready).count, self.games.filter { $0.state != .skipped }.count)
    }
}

/// Responses the proxy could not store since it last stored one.
public struct StoreWriteFailuresReport: Sendable, Codable, Hashable {
    /// The first failure since the last stored response.
    public var since: Date
    /// How many responses were not stored since then.
    public var failures: Int
    /// The latest error, e.g. "No space left on device".
    public var lastError: String
}

/// Entries, bytes and the size budget: the store's ``StoreTotals`` (read through, as
/// `report.entries`), and the budget. Encoded flat, the totals' fields beside `maxSize` and
/// `budgetUsed`.
@dynamicMemberLookup
public struct StoreReport: Sendable, Codable, Hashable {
    /// Entries and bytes, runtime and precached.
    public var totals: StoreTotals
    /// The size budget (`--max-size`), or nil when none is set.
    public var maxSize: Int64?
    /// `bytes / maxSize`, or nil without a budget.
    public var budgetUsed: Double?

    /// The report of `totals` under the budget `maxSize`.
    public init(totals: StoreTotals, maxSize: Int64?) {
        self.totals = totals
        self.maxSize = maxSize
        self.budgetUsed = maxSize.flatMap { $0 > 0 ? Double(totals.bytes) / Double($0) : nil }
    }

    /// A field of the ``totals``.
    public subscript<Value>(dynamicMember field: KeyPath<StoreTotals, Value>) -> Value {
        self.totals[keyPath: field]
    }

    private enum CodingKeys: String, CodingKey {
        case maxSize, budgetUsed
    }

    public init(from decoder: any Decoder) throws {
        self.totals = try StoreTotals(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.maxSize = try container.decodeIfPresent(Int64.self, forKey: .maxSize)
        self.budgetUsed = try container.decodeIfPresent(Double.self, forKey: .budgetUsed)
    }

    /// Encodes every field, writing `null` for a missing budget (rather than leaving the key out).
    public func encode(to encoder: any Encoder) throws {
        try self.totals.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.maxSize, forKey: .maxSize)
        try container.encode(self.budgetUsed, forKey: .budgetUsed)
    }
}

/// Answers since the proxy started, by how they were served.
public struct RequestCounts: Sendable, Codable, Hashable {
    /// Answered from the cache.
    public var hits: Int
    /// Not answered from the cache: fetched from upstream, or offline misses.
    public var misses: Int
    /// The misses the cache could not answer because the origin could not (unreachable, timed
    /// out, backing off, offline mode) and nothing stored could be used.
    public var offlineMisses: Int
    /// Served from the cache because upstream failed, was backing off or too slow.
    public var stale: Int
    /// Other error answers (refusals, `cache-only` and `only-if-cached` misses).
    public var errors: Int
    /// Not a cache matter: tunnels and Larder's own pages.
    public var bypassed: Int
    /// `(hits + stale) / (hits + stale + misses)`: the share of cacheable answers the cache gave;
    /// nil before the first.
    public var hitRatio: Double?

    /// The counts of `statistics` so far.
    public init(_ counts: [RequestOutcome: Int]) {
        self.hits = counts[.hit] ?? 0
        self.offlineMisses = counts[.offlineMiss] ?? 0
        self.misses = (counts[.miss] ?? 0) + self.offlineMisses
        self.stale = counts[.stale] ?? 0
        self.errors = counts[.error] ?? 0
        self.bypassed = counts[.bypass] ?? 0
        let cacheable = self.hits + self.stale + self.misses
        self.hitRatio = cacheable > 0 ? Double(self.hits + self.stale) / Double(cacheable) : nil
    }
}

/// One game and whether it works offline.
public struct GameReport: Sendable, Codable, Hashable {
    /// The game's identifier (its root's last path segment).
    public var slug: String
    /// The name its `metadata.json` gives, if any.
    public var displayName: String?
    /// The game root URL.
    public var root: String
    /// The manifest URL.
    public var manifestURL: String
    /// How far the last precache got.
    public var state: GameState
    /// Whether every listed file is cached and, with a proxy, no request under the game (or from its
    /// page) was an offline miss since its last precache: the game works offline.
    public var ready: Bool
    /// `ready`, `2 of 3`, `failed`, `skipped`, or `N offline misses`.
    public var readiness: String
    /// Files the manifest lists.
    public var filesListed: Int
    /// Files cached.
    public var filesCached: Int
    /// Files listed but not cached.
    public var filesMissing: Int
    /// Bytes of the cached files.
    public var bytes: Int64
    /// When the game was last precached.
    public var lastPrecache: Date
    /// Why the last precache failed, if it did.
    public var lastError: String?
    /// The first files that are not cached, with reasons (all of them on the game's own page).
    public var missing: [GameFileReport]
    /// The game's page: `/dev/offline/games/SLUG`.
    public var detail: String
    /// Requests under the game, or from its page, that were offline misses since its last precache,
    /// newest first; nil without a proxy.
    public var offlineMisses: [OfflineMiss]?
    /// Same-origin scripts and styles the game's stored page names that are not stored (a fresh
    /// profile would miss them offline); nil when there are none.
    public var unstoredByPage: [String]?

    /// Records what the game's page names and the store lacks: the game is then not ready.
    mutating func add(unstoredByPage urls: [String]) {
        guard !urls.isEmpty else { return }
        self.unstoredByPage = urls
        if self.ready {
            self.ready = false
            self.readiness = PageReport.unstoredNote(count: urls.count)
        }
    }

    /// The report of `record`.
    public init(_ record: GameRecord, missing: [GameFileReport]) {
        self.slug = record.slug
        self.displayName = record.displayName
        self.root = record.root
        self.manifestURL = record.manifestURL
        self.state = record.state
        self.filesListed = record.filesListed
        self.filesCached = record.filesCached
        self.filesMissing = record.state == .skipped ? 0 : max(record.filesListed - record.filesCached, 0)
        self.ready = record.state == .ready && self.filesMissing == 0
        self.readiness = Self.readiness(state: record.state, cached: record.filesCached, listed: record.filesListed)
        self.bytes = record.bytes
        self.lastPrecache = record.lastRun
        self.lastError = record.lastError
        self.missing = missing
        self.detail = "\(DevOfflinePages.root)/games/\(record.slug)"
    }

    /// `ready`, `n of m`, `failed` or `skipped`.
    static func readiness(state: GameState, cached: Int, listed: Int) -> String {
        switch state {
        case .ready: return cached == listed ? "ready" : "\(cached) of \(listed)"
        case .partial: return "\(cached) of \(listed)"
        case .failed: return "failed"
        case .skipped: return "skipped"
        }
    }

    /// The name to show: the display name, else the slug.
    public var name: String {
        self.displayName ?? self.slug
    }
}

/// One file a game lists.
public struct GameFileReport: Sendable, Codable, Hashable {
    /// The file's URL.
    public var url: String
    /// The key it is stored under.
    public var key: String
    /// `cached`, `missing` (recorded as cached but no longer in the cache), `failed`, `excluded` or `refused`.
    public var state: String
    /// Why it is not cached.
    public var reason: String?
    /// Its body size, when it is cached and was looked up.
    public var bodySize: Int64?

    /// The report of `record` as recorded, without looking at the store.
    init(_ record: GameFileRecord) {
        self.url = record.url
        self.key = record.key.rawValue
        self.state = record.state.rawValue
        self.reason = record.reason
        self.bodySize = nil
    }

    /// The report of `record`, checked against what the store holds for it (`stored`, nil when
    /// nothing): a file recorded as cached whose entry is gone shows as `missing`.
    init(_ record: GameFileRecord, stored: StoredKeyState?) {
        self.init(record)
        guard record.state == .cached else { return }
        if let stored {
            self.bodySize = stored.bodySize
        } else {
            self.state = "missing"
            self.reason = "recorded as cached, but no longer in the cache"
        }
    }
}

/// A page games.txt listed.
public struct PageReport: Sendable, Codable, Hashable {
    /// The page URL.
    public var url: String
    /// `cached`, `incomplete` (cached, but it names same-origin scripts or styles that are not
    /// stored), `missing` (recorded as cached but no longer in the cache), `failed`, `excluded` or
    /// `refused`.
    public var state: String
    /// Why it is not cached.
    public var reason: String?
    /// When it was last precached.
    public var lastRun: Date

    /// The report of `record`, checked against whether the store still holds it (`isStored`).
    public init(_ record: PrecachePageRecord, isStored: Bool) {
        self.url = record.url
        self.state = record.state.rawValue
        self.reason = record.reason
        self.lastRun = record.lastRun
        if record.state == .cached && !isStored {
            self.state = "missing"
            self.reason = "recorded as cached, but no longer in the cache"
        }
    }

    /// Whether the page is cached.
    public var isCached: Bool {
        self.state == ListedFileState.cached.rawValue
    }

    /// Same-origin scripts and styles the stored page names that are not stored; nil when there
    /// are none.
    public var unstoredSubresources: [String]?

    /// Records what the stored page names and the store lacks: its state becomes `incomplete`.
    mutating func add(unstoredSubresources urls: [String]) {
        guard !urls.isEmpty else { return }
        self.unstoredSubresources = urls
        self.state = Self.incomplete
        self.reason =
            Self.unstoredNote(count: urls.count) + ": " + urls.prefix(3).joined(separator: ", ")
            + (urls.count > 3 ? ", …" : "")
    }

    /// The state of a cached page that names scripts or styles that are not stored.
    public static let incomplete = "incomplete"

    /// `page names N scripts or styles not stored`.
    static func unstoredNote(count: Int) -> String {
        "page names \(count) \(count == 1 ? "script or style" : "scripts or styles") not stored"
    }
}

/// A URL added to precache from the offline misses.
public struct ExtraURLReport: Sendable, Codable, Hashable {
    /// The URL.
    public var url: String
    /// The slug of the game it is precached with, or nil (precached with every run).
    public var game: String?
    /// When it was added.
    public var addedAt: Date
    /// Its state as a precached page (`cached`, `missing`, `failed`...), or `pending` before a run
    /// has fetched it.
    public var state: String
    /// Why it is not cached.
    public var reason: String?

    /// The report of `record`, with the record of the page it was precached as, if any.
    init(_ record: ExtraURLRecord, page: PageReport?) {
        self.url = record.url
        self.game = record.gameSlug
        self.addedAt = record.addedAt
        self.state = page?.state ?? "pending"
        self.reason = page?.reason
    }
}

/// One page of the entry list, with the search that made it.
public struct EntryListReport: Sendable, Codable, Hashable {
    /// The search text, if any.
    public var query: String?
    /// The order.
    public var sort: EntrySort
    /// The page number, from 1.
    public var page: Int
    /// Entries per page.
    public var pageSize: Int
    /// Matching entries (a lower bound when `isTotalExact` is false).
    public var total: Int
    /// Whether `total` is exact.
    public var isTotalExact: Bool
    /// Whether a later page has entries.
    public var hasMore: Bool
    /// The search text was too short to search.
    public var isQueryTooShort: Bool
    /// The entries.
    public var entries: [EntrySummary]

    /// The report of `page`, found with `query` and `sort`.
    public init(query: String?, sort: EntrySort, page: EntryPage) {
        self.query = query
        self.sort = sort
        self.page = page.page
        self.pageSize = page.pageSize
        self.total = page.total
        self.isTotalExact = page.isTotalExact
        self.hasMore = page.hasMore
        self.isQueryTooShort = page.isQueryTooShort
        self.entries = page.entries
    }
}

/// One game with every file it lists, as `/dev/offline/games/SLUG.json` answers it.
public struct GameDetailReport: Sendable, Encodable {
    /// The game; its readiness counts the files found missing.
    public var game: GameReport
    /// Every file, in manifest order.
    public var files: [GameFileReport]
    /// The URLs added to precache with the game, the first added first.
    public var extraURLs: [ExtraURLReport]
    /// The precache job asked for in the page's `job` parameter, if it is known.
    public var job: PrecacheJobStatus<EncodedReport>?
}

/// The limits on the precache jobs web pages of other sites ask for (``PagePrecacheLimit``), and
/// each page origin's use of them in the past hour.
public struct PageJobsReport: Sendable, Codable, Hashable {
    /// One page origin's jobs and bytes of the past hour.
    public struct OriginUse: Sendable, Codable, Hashable {
        public var origin: String
        public var jobs: Int
        public var bytes: Int64
    }

    /// Jobs one origin may have queued or running at once.
    public var maximumUnfinished: Int
    /// Jobs one origin may ask for per hour.
    public var jobsPerHour: Int
    /// Bytes one origin's jobs may download per hour.
    public var bytesPerHour: Int64
    /// Jobs the pages of every origin together may ask for per hour (optional, so that a report
    /// of an earlier version still reads).
    public var allOriginsJobsPerHour: Int?
    /// Bytes the jobs of every page origin together may download per hour.
    public var allOriginsBytesPerHour: Int64?
    /// The origins with jobs in the past hour, by origin.
    public var origins: [OriginUse]

    /// The report of the limits `limit` and each page origin's `use` of them.
    public init(_ limit: PagePrecacheLimit, use: [PageJobUse]) {
        self.maximumUnfinished = PagePrecacheLimit.maximumUnfinished
        self.jobsPerHour = limit.jobsPerHour
        self.bytesPerHour = limit.bytesPerHour
        self.allOriginsJobsPerHour = limit.allOriginsJobsPerHour
        self.allOriginsBytesPerHour = limit.allOriginsBytesPerHour
        self.origins = use.map { OriginUse(origin: $0.origin, jobs: $0.jobs, bytes: $0.bytes) }
    }
}
