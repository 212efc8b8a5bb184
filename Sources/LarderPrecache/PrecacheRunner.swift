import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import Synchronization

/// Runs a precache: fetches every manifest first (concurrently, always from the network),
/// plans, downloads what is missing (pages first, then game by game), and records each game as
/// soon as its downloads are done.
///
/// A game's new version is atomic: its bodies are staged (``BodyWriter/stage(key:head:expectedLength:revision:expectedHash:)``)
/// and installed together with its record in one transaction (``Store/saveGameVersion(_:files:installing:)``);
/// until then the previous version is what is served and what /dev/offline shows. A new version
/// that is not complete (a file failed, the run was killed) leaves a complete previous version
/// ready, and its staged bodies wait for the next run. Pages on their own are stored as they come.
///
/// Used by `larder precache` and by the proxy's `POST /dev/offline/precache`.
public final class PrecacheRunner: Sendable {
    let store: Store
    private let upstream: any Upstream
    let options: PrecacheOptions
    let logger: Logger

    /// Creates a runner over a store and an upstream client.
    public init(store: Store, upstream: any Upstream, options: PrecacheOptions = .init(), logger: Logger = Logger(label: "larder.precache"))
    {
        self.store = store
        self.upstream = upstream
        self.options = options
        self.logger = logger
    }

    /// The bytes a run's downloads have taken, shared by its workers (``PrecacheOptions/byteAllowance``).
    private final class DownloadedBytes: Sendable {
        let total = Mutex<Int64>(0)
    }

    /// This runner for a job a web page asked for (docs/SERVING.md, "What is private and where it
    /// is kept"): what it stores is kept as runtime entries, it downloads one file at a time,
    /// follows no redirect to another origin, stops a body larger than `byteAllowance`, and starts
    /// no download once `byteAllowance` bytes are downloaded, so a page can pass its origin's
    /// hourly bytes by one file, itself no larger than them, at most.
    public func forPageJob(byteAllowance: Int64) -> PrecacheRunner {
        var options = self.options
        options.entryKind = .runtime
        options.concurrency = 1
        options.byteAllowance = byteAllowance
        options.redirectsStayOnOrigin = true
        return PrecacheRunner(store: self.store, upstream: self.upstream, options: options, logger: self.logger)
    }

    /// This runner for a job `reach` limits (``PrecacheOptions/reach``); itself when nil.
    public func reaching(_ reach: UpstreamReach?) -> PrecacheRunner {
        guard let reach else { return self }
        var options = self.options
        options.reach = reach
        return PrecacheRunner(store: self.store, upstream: self.upstream, options: options, logger: self.logger)
    }

    /// Runs the whole job for a parsed games list, in tiers: a tier's downloads start only once the
    /// previous tier's are done, so what is needed now never waits behind what is needed later.
    ///
    /// 0. Every manifest (games' and series'), at once, always from the network.
    /// 1. The pages the list names on their own, today's file of every series, and `firstTier`
    ///    (run alongside them; `larder precache --config` runs the declared requests there).
    /// 2. The games, in list order, each recorded as soon as its last download is done.
    /// 3. The series backlogs: past days newest first, then future days (``SeriesPlanner/backlog(_:)``).
    ///
    /// - Parameters:
    ///   - progress: Told as the run goes.
    ///   - firstTier: Work that belongs with tier 1; tier 2 waits for it too.
    public func run(
        _ list: GamesList,
        progress: @escaping @Sendable (PrecacheProgress) -> Void = { _ in },
        firstTier: @escaping @Sendable () async -> Void = {}
    ) async -> PrecacheReport {
        let started = ContinuousClock.now
        let startDate = Date()
        let limiter = HostLimiter(connectionsPerHost: self.options.connectionsPerHost, spacing: self.options.delayPerHost)
        var list = list
        var games = list.games
        var series = list.series

        // 0. Manifests (and display names), games' and series', all at once.
        progress(.fetchingManifests(count: games.count + series.count { if case .manifest = $0.kind { true } else { false } }))
        var manifests: [String: ManifestOutcome] = [:]
        var fetchedManifests: [String: FetchedManifest] = [:]
        var fetchedSeries = [FetchedSeries](repeating: FetchedSeries(), count: series.count)
        await withTaskGroup(of: FetchedAny.self) { group in
            for game in games {
                group.addTask { .game(game.slug, await self.fetchManifest(game, limiter: limiter)) }
            }
            for (index, source) in series.enumerated() {
                group.addTask { .series(index, await self.fetchSeriesManifest(source, limiter: limiter)) }
            }
            for await fetched in group {
                switch fetched {
                case .game(let slug, let manifest):
                    manifests[slug] = manifest.outcome
                    fetchedManifests[slug] = manifest
                case .series(let index, let manifest):
                    fetchedSeries[index] = manifest
                }
            }
        }

        // A bare manifest line whose manifest turned out to be a dated series runs as one.
        for game in games {
            guard let detected = fetchedManifests[game.slug]?.series else { continue }
            let source = SeriesSource(
                kind: .manifest(game.manifestURL), line: "\(GamesList.seriesKeyword) \(game.manifestURL.absoluteString)",
                lineNumber: game.line, past: SeriesSource.maximumPast, future: SeriesSource.defaultFuture, timeZone: .current)
            list.entries = list.entries.map { entry in
                if case .game(let listed) = entry, listed.slug == game.slug { return .series(source) }
                return entry
            }
            manifests.removeValue(forKey: game.slug)
            fetchedManifests.removeValue(forKey: game.slug)
            series.append(source)
            fetchedSeries.append(detected)
        }
        games = list.games

        // The plan, against what the store holds (one batched lookup) and what interrupted runs staged.
        let now = self.options.clock()
        let seriesPlanner = SeriesPlanner(queryFilter: self.options.queryFilter)
        func planSeries(_ isCached: (CacheKey) -> Bool) -> [SeriesPlan] {
            zip(series, fetchedSeries).map { source, fetched in
                seriesPlanner.plan(source, listing: fetched.listing, manifestError: fetched.error, now: now, isCached: isCached)
            }
        }
        var candidateKeys = list.pageURLs.map { CacheKey(url: $0, filter: self.options.queryFilter) }
        candidateKeys += games.compactMap { $0.page.map { CacheKey(url: $0, filter: self.options.queryFilter) } }
        for case .parsed(let manifest) in manifests.values {
            candidateKeys += manifest.files.map(\.key)
        }
        candidateKeys += planSeries { _ in false }.flatMap { $0.days.map(\.key) }
        var stored: [CacheKey: StoredKeyState] = [:]
        var staged: [CacheKey: StoredKeyState] = [:]
        do {
            stored = try await self.store.storedStates(for: candidateKeys)
            staged = try await self.store.stagedStates(for: candidateKeys)
        } catch {
            self.logger.error("cannot read the cache index", metadata: ["error": "\(error)"])
        }
        let planner = PrecachePlanner(excludes: self.options.excludes, queryFilter: self.options.queryFilter)
        let plan = planner.plan(
            gamesList: list,
            manifests: manifests,
            cachedState: { key in stored[key].map { CachedState(revision: $0.revision) } },
            stagedState: { key in staged[key].map { CachedState(revision: $0.revision) } }
        )
        let seriesPlans = planSeries { stored[$0] != nil }
        let tiers = Self.tiers(plan: plan, list: list, series: seriesPlans, queryFilter: self.options.queryFilter)
        progress(
            .planned(
                toFetch: tiers.reduce(0) { $0 + $1.count },
                alreadyCached: plan.alreadyCachedCount + seriesPlans.reduce(0) { $0 + $1.days.count(where: \.isCached) }
            )
        )

        // Downloads, tier after tier, each in order, a bounded number at once; each game is recorded
        // as soon as the last download it waits on is done (those waiting on none, at once).
        let context = RunContext(plan: plan, manifests: fetchedManifests, stored: stored, lastRun: Date())
        let tally = RunTally(plan.fetches)
        for (order, game) in plan.games.enumerated() where !tally.isWaiting(game.slug) {
            tally.add(await self.record(game, order: order, run: context, results: [:]))
        }
        var position = 0
        for (number, tier) in tiers.enumerated() {
            let positioned = tier.enumerated().map { (position: position + $0, fetch: $1) }
            position += tier.count
            if number == 0 {
                async let hook: Void = firstTier()
                await self.download(positioned, plan: plan, context: context, tally: tally, limiter: limiter, progress: progress)
                await hook
                // Today's files are in: say so before the games and backlogs, which may take long.
                _ = await self.recordSeries(seriesPlans, fetched: fetchedSeries, results: tally.results)
            } else {
                await self.download(positioned, plan: plan, context: context, tally: tally, limiter: limiter, progress: progress)
            }
        }
        let seriesReports = await self.recordSeries(seriesPlans, fetched: fetchedSeries, results: tally.results)

        // 4. Pages, and what updates that never completed left staged.
        let results = tally.results
        let pageFailures = await self.recordPages(plan: plan, list: list, stored: stored, results: results)
        do {
            try await self.store.removeStaged(stagedBefore: startDate, keeping: plan.stagedKeys)
        } catch {
            self.logger.error("cannot remove abandoned staged bodies", metadata: ["error": "\(error)"])
        }

        var downloaded = 0
        var downloadedBytes: Int64 = 0
        var failed = 0
        for result in results.values {
            switch result {
            case .success(let bytes):
                downloaded += 1
                downloadedBytes += bytes
            case .failure:
                failed += 1
            }
        }
        let recorded = tally.recorded
        let elapsed = ContinuousClock.now - started
        var report = PrecacheReport(
            games: plan.games.compactMap { recorded[$0.slug]?.report },
            pageFailures: pageFailures,
            pagesListed: Set(list.pageURLs.map { CacheKey(url: $0, filter: self.options.queryFilter) }).count,
            listProblems: list.problems.map(\.description),
            alreadyCached: plan.alreadyCachedCount + seriesPlans.reduce(0) { $0 + $1.days.count(where: \.isCached) },
            downloaded: downloaded,
            downloadedBytes: downloadedBytes,
            failed: failed,
            excluded: plan.excludedCount,
            removed: recorded.values.reduce(0) { $0 + $1.removed },
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
        report.series = seriesReports
        progress(.finished(report))
        return report
    }

    /// A manifest fetched at the start of a run.
    private enum FetchedAny: Sendable {
        case game(String, FetchedManifest)
        case series(Int, FetchedSeries)
    }

    /// The run's downloads in tiers (see ``run(_:progress:firstTier:)``): the list's own pages and
    /// today's series files; the games' files; the series backlogs. A key is fetched once, in the
    /// first tier that needs it.
    static func tiers(plan: PrecachePlan, list: GamesList, series: [SeriesPlan], queryFilter: QueryParameterFilter) -> [[PlannedFetch]] {
        // The planner puts the list's own pages first.
        let pageKeys = Set(list.pageURLs.map { CacheKey(url: $0, filter: queryFilter) })
        let pageCount = plan.fetches.prefix { pageKeys.contains($0.key) }.count
        var first = Array(plan.fetches.prefix(pageCount))
        let second = Array(plan.fetches.dropFirst(pageCount))
        var seen = Set(plan.fetches.map(\.key))
        func fetch(_ day: SeriesPlan.Day) -> PlannedFetch? {
            guard seen.insert(day.key).inserted else { return nil }
            return PlannedFetch(url: day.url, key: day.key, kind: .asset, games: [], revision: nil)
        }
        first += series.compactMap { $0.todayToFetch.flatMap(fetch) }
        let third = SeriesPlanner.backlog(series).compactMap(fetch)
        return [first, second, third]
    }

    /// How many received bodies the download workers may have waiting for their commit, in all,
    /// while they download the next: commits wait for their install batch's durability barrier,
    /// and the downloads should not. Each waiting body holds its temporary file open, so this
    /// stays well under the usual limit of 1,024 descriptors.
    static let waitingBodies = 512

    /// Downloads one tier, in order, `concurrency` at once; records each game whose last download is done.
    ///
    /// Each worker hands its received bodies over in commit units: a game's files are staged
    /// together, up to half the worker's share of ``waitingBodies`` at once, so that they share
    /// an install batch (its barrier, body folders and log pages) and its caller waits once for
    /// all; a unit goes as soon as it is full or the worker's next file is for other games (so
    /// that a game's last files never wait for the next game's). A page on its own is committed
    /// alone. A worker has at most one unit committing while it fills the next.
    private func download(
        _ fetches: [(position: Int, fetch: PlannedFetch)],
        plan: PrecachePlan,
        context: RunContext,
        tally: RunTally,
        limiter: HostLimiter,
        progress: @escaping @Sendable (PrecacheProgress) -> Void
    ) async {
        guard !fetches.isEmpty else { return }
        let queue = FetchQueue(fetches)
        limiter.expect(fetches.map { (host: $0.fetch.url.authority, position: $0.position) })
        @Sendable func finish(_ fetch: PlannedFetch, _ result: Result<Int64, DownloadFailure>) async {
            switch result {
            case .success(let bytes):
                progress(.fileFinished(url: fetch.url.absoluteString, game: fetch.games.first, bytes: bytes, error: nil))
            case .failure(let failure):
                progress(.fileFinished(url: fetch.url.absoluteString, game: fetch.games.first, bytes: 0, error: failure.reason))
            }
            for slug in tally.finish(fetch, result) {
                guard let order = plan.games.firstIndex(where: { $0.slug == slug }) else { continue }
                let results = tally.results
                tally.add(await self.record(plan.games[order], order: order, run: context, results: results))
            }
        }
        let workers = max(1, self.options.concurrency)
        let unitSize = max(1, Self.waitingBodies / workers / 2)
        let downloaded = DownloadedBytes()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    await withTaskGroup(of: Void.self) { commits in
                        var committing = false
                        var filling: [ReceivedFetch] = []
                        while true {
                            let taken = queue.take()
                            var units: [[ReceivedFetch]] = []
                            if let (position, fetch) = taken?.item {
                                if let allowance = self.options.byteAllowance, downloaded.total.withLock({ $0 }) >= allowance {
                                    let reason = "not fetched: this job's downloads reached the \(ByteSize(bytes: allowance)) it may take"
                                    await finish(fetch, .failure(DownloadFailure(reason: reason, isTransient: false)))
                                    continue
                                }
                                if let pause = self.options.pauseBeforeDownload?(), pause > .zero {
                                    // Cancelled: the download below ends at once too.
                                    try? await Task.sleep(for: pause)
                                }
                                switch await self.download(fetch, position: position, limiter: limiter) {
                                case .failure(let failure):
                                    await finish(fetch, .failure(failure))
                                case .success(let received):
                                    let bytes = received.reduce(Int64(0)) { $0 + $1.writer.bytesWritten }
                                    downloaded.total.withLock { $0 += bytes }
                                    let item = ReceivedFetch(fetch: fetch, bodies: received)
                                    if let last = filling.last, !(item.isStaged && last.fetch.games == fetch.games) {
                                        units.append(filling)
                                        filling = []
                                    }
                                    filling.append(item)
                                    if !item.isStaged || filling.count >= unitSize {
                                        units.append(filling)
                                        filling = []
                                    }
                                }
                            } else if !filling.isEmpty {
                                units.append(filling)
                                filling = []
                            }
                            for unit in units {
                                if committing {
                                    await commits.next()
                                }
                                committing = true
                                commits.addTask {
                                    for (item, result) in zip(unit, await self.commit(unit)) {
                                        await finish(item.fetch, result)
                                    }
                                }
                            }
                            if taken == nil { break }
                        }
                    }
                }
            }
        }
    }

    // MARK: - Manifests

    /// A game's manifest as fetched, with its display name and what was staged with it.
    struct FetchedManifest: Sendable {
        var outcome: ManifestOutcome
        var displayName: String?
        /// The manifest's and metadata's keys when they were staged, to be installed with the game's
        /// new version (the manifest lists it; a `skip: true` manifest is stored at once instead).
        var stagedKeys: [CacheKey] = []
        /// The manifest is a dated series' (WordErase's `available_puzzles`), not a game's: the
        /// line is run as `series URL` with the defaults (see ``seriesFromGames(_:_:)``).
        var series: FetchedSeries?
    }

    private func fetchManifest(_ game: GameSource, limiter: HostLimiter) async -> FetchedManifest {
        let manifest: SmallResponse
        do {
            manifest = try await self.fetchSmall(game.manifestURL, limit: PrecacheManifest.maximumBodySize, limiter: limiter)
        } catch {
            return FetchedManifest(outcome: .fetchFailed(reason: error.reason))
        }
        let parsed: PrecacheManifest
        do {
            parsed = try PrecacheManifest.parse(
                status: manifest.status,
                contentType: manifest.header("content-type"),
                body: manifest.body,
                manifestURL: game.manifestURL,
                root: game.root,
                allowCrossOrigin: self.options.allowCrossOrigin,
                queryFilter: self.options.queryFilter
            )
        } catch {
            if let listing = try? SeriesListing.parse(
                status: manifest.status, contentType: manifest.header("content-type"), body: manifest.body,
                manifestURL: game.manifestURL, allowCrossOrigin: self.options.allowCrossOrigin, queryFilter: self.options.queryFilter)
            {
                let key = await self.storeSmall(manifest, url: game.manifestURL, staged: false)
                return FetchedManifest(outcome: .invalid(error), series: FetchedSeries(listing: listing, manifestKey: key))
            }
            return FetchedManifest(outcome: .invalid(error))
        }
        // The metadata comes down while the manifest is stored.
        async let fetchedMetadata = try? await self.fetchSmall(game.metadataURL, limit: GameMetadata.maximumBodySize, limiter: limiter)
        // The manifest is cached too, so the game can be listed offline: with the version it lists.
        var fetched = FetchedManifest(outcome: .parsed(parsed))
        let stages = !parsed.skip
        if let key = await self.storeSmall(manifest, url: game.manifestURL, staged: stages), stages {
            fetched.stagedKeys.append(key)
        }

        if let metadata = await fetchedMetadata, metadata.status == 200 {
            fetched.displayName = GameMetadata.parse(body: metadata.body).displayName
            if metadata.isComplete {
                if let key = await self.storeSmall(metadata, url: game.metadataURL, staged: stages), stages {
                    fetched.stagedKeys.append(key)
                }
            } else {
                self.logger.warning(
                    "not storing a metadata.json larger than the limit",
                    metadata: ["url": "\(game.metadataURL.absoluteString)", "limit": "\(GameMetadata.maximumBodySize)"]
                )
            }
        }
        return fetched
    }

    /// A response read whole (manifests, metadata: bounded sizes), or its first `limit + 1` bytes.
    struct SmallResponse {
        var status: Int
        var headers: [HeaderField]
        var body: [UInt8]
        /// False when reading stopped at the limit: `body` is a prefix, never to be stored.
        var isComplete: Bool
        var requestTime: Date
        var responseTime: Date

        func header(_ name: String) -> String? {
            self.headers.first(name: name)
        }
    }

    /// GETs `url` from the network (`Cache-Control: no-cache`), reading at most `limit + 1` bytes
    /// (a longer body is a prefix, marked incomplete).
    func fetchSmall(_ url: HTTPURL, limit: Int, limiter: HostLimiter) async throws(DownloadFailure) -> SmallResponse {
        try await self.withRetries(url) { () throws(DownloadFailure) -> SmallResponse in
            try await self.withHostSlot(url, limiter: limiter) { () throws(DownloadFailure) -> SmallResponse in
                let requestTime = Date()
                let response = try await self.execute(
                    url,
                    headers: [
                        HeaderField(name: "Cache-Control", value: "no-cache"), HeaderField(name: "Accept", value: "application/json"),
                    ])
                let responseTime = Date()
                if RetryPolicy.isTransient(status: response.head.status) {
                    throw DownloadFailure(reason: "answered HTTP \(response.head.status)", isTransient: true)
                }
                var body: [UInt8] = []
                var isComplete = true
                do {
                    for try await chunk in response.body {
                        body += chunk.readableBytesView
                        if body.count > limit {
                            // The parser reports the size; the rest is not needed, and the prefix is never stored.
                            isComplete = false
                            break
                        }
                    }
                } catch let error as UpstreamError {
                    throw DownloadFailure(reason: error.description, isTransient: RetryPolicy.isTransient(error))
                } catch {
                    throw DownloadFailure(reason: "\(error)", isTransient: false)
                }
                return SmallResponse(
                    status: response.head.status,
                    headers: response.head.headers,
                    body: body,
                    isComplete: isComplete,
                    requestTime: requestTime,
                    responseTime: responseTime
                )
            }
        }
    }

    /// Stores (or stages) a small response read whole; returns its key, or nil when it was not stored.
    func storeSmall(_ response: SmallResponse, url: HTTPURL, staged: Bool) async -> CacheKey? {
        guard response.isComplete else { return nil }
        let key = CacheKey(url: url, filter: self.options.queryFilter)
        let head = StoredResponseHead(
            url: url.absoluteString,
            status: response.status,
            headers: response.headers,
            requestTime: response.requestTime,
            responseTime: response.responseTime
        )
        // What upstream declared, so a body cut short by the connection is not stored either.
        let expectedLength = response.header("content-length").flatMap { Int64($0) } ?? Int64(response.body.count)
        do {
            let writer = try self.store.makeBodyWriter()
            try writer.write(contentsOf: response.body)
            if staged {
                _ = try await writer.stage(key: key, head: head, expectedLength: expectedLength)
            } else {
                _ = try await writer.commit(key: key, head: head, kind: self.options.entryKind, expectedLength: expectedLength)
            }
            return key
        } catch {
            self.logger.warning("cannot store", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            return nil
        }
    }

    // MARK: - Downloads

    /// Why a download failed.
    struct DownloadFailure: Error, Sendable {
        var reason: String
        var isTransient: Bool
    }

    /// Downloads one planned file to a temporary file of the store, whole and of its declared
    /// length, retrying transient failures; ``commit(_:for:)`` then indexes it. A page on its own
    /// that redirects comes with each step (``RedirectChain``), the redirects first.
    private func download(_ fetch: PlannedFetch, position: Int, limiter: HostLimiter) async -> Result<[ReceivedBody], DownloadFailure> {
        do {
            let received = try await self.withRetries(fetch.url) { () throws(DownloadFailure) -> [ReceivedBody] in
                // The host's slot is held while the body arrives, not while it is made durable and
                // indexed: the connection is free again by then, and the next file can come down it.
                try await self.withHostSlot(fetch.url, position: position, limiter: limiter) {
                    () throws(DownloadFailure) -> [ReceivedBody] in
                    // Its answer has begun: downloads further on may start (HostLimiter).
                    let host = fetch.url.authority
                    return try await self.receive(fetch, answered: { limiter.answered(host, position: position) })
                }
            }
            return .success(received)
        } catch {
            return .failure(error)
        }
    }

    /// A body writer fed by the thread that receives the body (``Upstream/receive(_:into:)``: curl's).
    /// `@unchecked Sendable`: that thread writes while the download's task waits for `receive` to
    /// return, and the task uses the writer only after it has, so never both at once.
    private final class ReceivingBody: UpstreamBodySink, @unchecked Sendable {
        let writer: BodyWriter
        /// The most bytes the body may have (nil: any), and how many it has had, on the one thread
        /// that receives it.
        let limit: Int64?
        private var received: Int64 = 0
        /// Told once, when the first bytes come.
        private let answered: (@Sendable () -> Void)?

        init(_ writer: BodyWriter, limit: Int64?, answered: (@Sendable () -> Void)? = nil) {
            self.writer = writer
            self.limit = limit
            self.answered = answered
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            if self.received == 0, !bytes.isEmpty { self.answered?() }
            self.received += Int64(bytes.count)
            if let limit = self.limit, self.received > limit {
                throw BodyOverLimit(limit: limit)
            }
            try self.writer.write(bytes)
        }
    }

    /// A body larger than a page's job may download (``PrecacheOptions/byteAllowance``): the
    /// transfer stops there, and nothing of it is kept.
    struct BodyOverLimit: Error, CustomStringConvertible {
        var limit: Int64
        var description: String { "not kept: the body is larger than the \(ByteSize(bytes: self.limit)) this job may download" }
    }

    /// A whole body written to a temporary file, not yet in the index, and the key it goes under.
    struct ReceivedBody {
        var key: CacheKey
        var writer: BodyWriter
        var head: StoredResponseHead
        var declaredLength: Int64?
    }

    /// The GETs of a planned file, each body written to a temporary file by the thread that
    /// receives it; the caller holds a host slot. A page on its own follows redirects, each step
    /// received under its own URL's key (docs/SERVING.md, "Redirects"); anything else must
    /// answer 200.
    private func receive(_ fetch: PlannedFetch, answered: @escaping @Sendable () -> Void) async throws(DownloadFailure) -> [ReceivedBody] {
        // Pages change between deploys: always ask the origin, never an intermediary's copy.
        let headers = fetch.kind == .page || fetch.url.isPage ? [HeaderField(name: "Cache-Control", value: "no-cache")] : []
        let followsRedirects = fetch.kind == .page && fetch.games.isEmpty
        var chain = RedirectChain(start: fetch.url, queryFilter: self.options.queryFilter)
        var url = fetch.url
        var key = fetch.key
        var steps: [ReceivedBody] = []
        do throws(DownloadFailure) {
            while true {
                let received = try await self.receiveBody(url, key: key, headers: headers, answered: answered)
                let status = received.head.status
                let redirects = followsRedirects && RedirectChain.statuses.contains(status)
                guard status == 200 || redirects else {
                    received.writer.discard()
                    throw DownloadFailure(
                        reason: url == fetch.url ? "answered HTTP \(status)" : "\(url.absoluteString) answered HTTP \(status)",
                        isTransient: RetryPolicy.isTransient(status: status)
                    )
                }
                steps.append(received)
                guard redirects else { return steps }
                do {
                    let location = received.head.headers.first(name: "location")
                    url = try chain.follow(location: location)
                } catch {
                    throw DownloadFailure(reason: error.reason, isTransient: false)
                }
                if self.options.redirectsStayOnOrigin, url.origin != fetch.url.origin {
                    // A page's job fetches its own origin only, however it is redirected.
                    throw DownloadFailure(
                        reason: "redirected to \(url.absoluteString), another origin than the job's", isTransient: false)
                }
                key = CacheKey(url: url, filter: self.options.queryFilter)
            }
        } catch {
            for step in steps {
                step.writer.discard()
            }
            throw error
        }
    }

    /// One GET, its body written to a temporary file of the store (and hashed) on the thread that
    /// receives it (``ReceivingBody``), handed back whole and of its declared length.
    /// `answered` is called on the receiving thread when the body's first bytes come.
    private func receiveBody(
        _ url: HTTPURL, key: CacheKey, headers: [HeaderField], answered: (@Sendable () -> Void)? = nil
    ) async throws(DownloadFailure) -> ReceivedBody {
        let body: ReceivingBody
        do {
            body = ReceivingBody(try self.store.makeBodyWriter(), limit: self.options.byteAllowance, answered: answered)
        } catch {
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        }
        var request = UpstreamRequest(
            method: "GET", url: url.absoluteString, headers: headers + [ViaField.field()])
        request.connectTimeout = self.options.connectTimeout
        request.idleTimeout = self.options.idleTimeout
        request.reach = self.options.reach
        let requestTime = Date()
        let head: UpstreamResponseHead
        do {
            head = try await self.upstream.receive(request, into: body)
        } catch let error as UpstreamError {
            body.writer.discard()
            throw DownloadFailure(reason: error.description, isTransient: RetryPolicy.isTransient(error))
        } catch let error as StoreError {
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        } catch {
            body.writer.discard()
            throw DownloadFailure(reason: "\(error)", isTransient: false)
        }
        let responseTime = Date()
        let declaredLength = head.headers.first(name: "content-length").flatMap { Int64($0) }
        do {
            // Checked here, where a short body can still be fetched again.
            try body.writer.checkLength(declaredLength)
        } catch {
            throw DownloadFailure(reason: "truncated body: \(error)", isTransient: true)
        }
        return ReceivedBody(
            key: key,
            writer: body.writer,
            head: StoredResponseHead(
                url: url.absoluteString,
                status: head.status,
                headers: head.headers,
                requestTime: requestTime,
                responseTime: responseTime
            ),
            declaredLength: declaredLength
        )
    }

    /// A planned file's received bodies: one, or a page's redirect steps and the page.
    /// `@unchecked Sendable` (its writers are not): the worker that received it hands it to one
    /// commit task and never touches it again.
    struct ReceivedFetch: @unchecked Sendable {
        var fetch: PlannedFetch
        var bodies: [ReceivedBody]

        /// Whether it is staged (a game waits on it: one body, installed with the game's new
        /// version) rather than committed at once.
        var isStaged: Bool {
            !self.fetch.games.isEmpty
        }
    }

    /// Indexes a unit of received files (see ``download(_:plan:context:tally:limiter:progress:)``):
    /// staged together when games wait on them (installed with a game's new version), else (a page
    /// on its own, and each step of its redirects) as pinned entries at once. Returns each file's
    /// size or failure, in order.
    private func commit(_ unit: [ReceivedFetch]) async -> [Result<Int64, DownloadFailure>] {
        guard unit.allSatisfy(\.isStaged) else {
            var results: [Result<Int64, DownloadFailure>] = []
            for item in unit {
                results.append(await self.commit(item.bodies, for: item.fetch))
            }
            return results
        }
        let staged = unit.flatMap { item in
            item.bodies.map { body in
                StagedBody(
                    writer: body.writer, key: body.key, head: body.head, expectedLength: body.declaredLength, revision: item.fetch.revision)
            }
        }
        return await self.store.stage(staged).map { outcome in
            outcome.mapError { DownloadFailure(reason: "cannot write to the cache: \($0)", isTransient: false) }
        }
    }

    /// Indexes a file's received bodies at once, as pinned entries unless the run keeps runtime
    /// ones (``PrecacheOptions/entryKind``): a page on its own, and each step of its redirects.
    /// Returns their size.
    private func commit(_ received: [ReceivedBody], for fetch: PlannedFetch) async -> Result<Int64, DownloadFailure> {
        var size: Int64 = 0
        for (index, body) in received.enumerated() {
            do {
                size += try await body.writer.commit(
                    key: body.key,
                    head: body.head,
                    kind: self.options.entryKind,
                    expectedLength: body.declaredLength,
                    revision: body.key == fetch.key ? fetch.revision : nil
                ).bodySize
            } catch {
                for rest in received[(index + 1)...] {
                    rest.writer.discard()
                }
                return .failure(DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false))
            }
        }
        return .success(size)
    }

    /// One GET; the caller holds a host slot.
    private func execute(_ url: HTTPURL, headers: [HeaderField]) async throws(DownloadFailure) -> UpstreamResponse {
        var request = UpstreamRequest(
            method: "GET", url: url.absoluteString, headers: headers + [ViaField.field()])
        request.connectTimeout = self.options.connectTimeout
        request.idleTimeout = self.options.idleTimeout
        request.reach = self.options.reach
        do {
            return try await self.upstream.execute(request)
        } catch let error as UpstreamError {
            throw DownloadFailure(reason: error.description, isTransient: RetryPolicy.isTransient(error))
        } catch {
            throw DownloadFailure(reason: "\(error)", isTransient: false)
        }
    }

    /// Runs `body` holding one of the host's slots (for the whole transfer, body included);
    /// `position` is its place in the plan.
    private func withHostSlot<T>(
        _ url: HTTPURL,
        position: Int? = nil,
        limiter: HostLimiter,
        _ body: () async throws(DownloadFailure) -> T
    ) async throws(DownloadFailure) -> T {
        let host = url.authority
        await limiter.acquire(host, position: position)
        do {
            let value = try await body()
            limiter.release(host, position: position)
            return value
        } catch {
            limiter.release(host, position: position)
            throw error
        }
    }

    private func withRetries<T>(_ url: HTTPURL, _ attempt: () async throws(DownloadFailure) -> T) async throws(DownloadFailure) -> T {
        var tries = 0
        while true {
            tries += 1
            do {
                return try await attempt()
            } catch {
                guard error.isTransient, tries < self.options.retry.attempts, !Task.isCancelled else {
                    throw error
                }
                self.logger.debug("retrying", metadata: ["url": "\(url.absoluteString)", "reason": "\(error.reason)", "try": "\(tries)"])
                try? await Task.sleep(for: self.options.retry.delay(afterAttempt: tries))
            }
        }
    }
}
