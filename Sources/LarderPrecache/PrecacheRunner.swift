import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore

/// Runs a precache: fetches every manifest first (concurrently, always from the network),
/// plans, downloads what is missing into the store as pinned entries (pages first, then game
/// by game), records each game's readiness, and removes files no manifest lists any more.
///
/// Used by `larder precache` and by the proxy's `POST /dev/offline/precache`.
public final class PrecacheRunner: Sendable {
    private let store: Store
    private let upstream: any Upstream
    private let options: PrecacheOptions
    private let logger: Logger

    /// Creates a runner over a store and an upstream client.
    public init(store: Store, upstream: any Upstream, options: PrecacheOptions = .init(), logger: Logger = Logger(label: "larder.precache"))
    {
        self.store = store
        self.upstream = upstream
        self.options = options
        self.logger = logger
    }

    /// Runs the whole job for a parsed games list.
    public func run(_ list: GamesList, progress: @escaping @Sendable (PrecacheProgress) -> Void = { _ in }) async -> PrecacheReport {
        let started = ContinuousClock.now
        let limiter = HostLimiter(connectionsPerHost: self.options.connectionsPerHost, spacing: self.options.delayPerHost)
        let games = list.games

        // 1. Manifests (and display names), all at once.
        progress(.fetchingManifests(count: games.count))
        var manifests: [String: ManifestOutcome] = [:]
        var displayNames: [String: String] = [:]
        await withTaskGroup(of: (String, ManifestOutcome, String?).self) { group in
            for game in games {
                group.addTask {
                    let (outcome, name) = await self.fetchManifest(game, limiter: limiter)
                    return (game.slug, outcome, name)
                }
            }
            for await (slug, outcome, name) in group {
                manifests[slug] = outcome
                displayNames[slug] = name
            }
        }

        // 2. The plan, against what the store holds.
        var candidateKeys = list.pageURLs.map { CacheKey(url: $0, filter: self.options.queryFilter) }
        for case .parsed(let manifest) in manifests.values {
            candidateKeys += manifest.files.map(\.key)
        }
        let stored: [CacheKey: StoredKeyState]
        do {
            stored = try await self.store.storedStates(for: candidateKeys)
        } catch {
            self.logger.error("cannot read the cache index", metadata: ["error": "\(error)"])
            stored = [:]
        }
        let planner = PrecachePlanner(excludes: self.options.excludes, queryFilter: self.options.queryFilter)
        let plan = planner.plan(gamesList: list, manifests: manifests) { key in
            stored[key].map { CachedState(revision: $0.revision) }
        }
        progress(.planned(toFetch: plan.fetches.count, alreadyCached: plan.alreadyCachedCount))

        // 3. Downloads, in plan order, a bounded number at once.
        let queue = FetchQueue(plan.fetches)
        await limiter.expect(plan.fetches.enumerated().map { (host: $1.url.authority, position: $0) })
        var results: [CacheKey: Result<Int64, DownloadFailure>] = [:]
        await withTaskGroup(of: [(CacheKey, Result<Int64, DownloadFailure>)].self) { group in
            for _ in 0..<max(1, self.options.concurrency) {
                group.addTask {
                    var finished: [(CacheKey, Result<Int64, DownloadFailure>)] = []
                    while let (position, fetch) = await queue.take() {
                        let result = await self.download(fetch, position: position, limiter: limiter)
                        finished.append((fetch.key, result))
                        switch result {
                        case .success(let bytes):
                            progress(.fileFinished(url: fetch.url.absoluteString, game: fetch.games.first, bytes: bytes, error: nil))
                        case .failure(let failure):
                            progress(.fileFinished(url: fetch.url.absoluteString, game: fetch.games.first, bytes: 0, error: failure.reason))
                        }
                    }
                    return finished
                }
            }
            for await finished in group {
                for (key, result) in finished { results[key] = result }
            }
        }

        // 4. Records, pins and clean-up.
        let report = await self.record(
            plan: plan,
            list: list,
            manifests: manifests,
            displayNames: displayNames,
            stored: stored,
            results: results,
            started: started
        )
        progress(.finished(report))
        return report
    }

    // MARK: - Recording

    private func record(
        plan: PrecachePlan,
        list: GamesList,
        manifests: [String: ManifestOutcome],
        displayNames: [String: String],
        stored: [CacheKey: StoredKeyState],
        results: [CacheKey: Result<Int64, DownloadFailure>],
        started: ContinuousClock.Instant
    ) async -> PrecacheReport {
        let now = Date()
        var alreadyCachedToPin: [CacheKey] = []
        var revisions: [CacheKey: String] = [:]
        var gameReports: [PrecacheReport.Game] = []
        var dropped: Set<CacheKey> = []

        for (order, game) in plan.games.enumerated() {
            var files: [LarderStore.GameFileRecord] = []
            var failures: [PrecacheReport.Failure] = []
            var cachedCount = 0
            var bytes: Int64 = 0
            var listed = 0
            var error: String?
            let state: PrecacheReport.Game.State
            var revision: String?

            switch game.state {
            case .skipped:
                state = .skipped
            case .failed(let reason):
                state = .failed
                error = reason
            case .planned(let keys, _, _, _, let refused):
                if case .parsed(let manifest)? = manifests[game.slug] {
                    revision = manifest.revision
                    for file in manifest.files where file.revision != nil {
                        revisions[file.key] = file.revision
                    }
                }
                for key in keys {
                    listed += 1
                    switch results[key] {
                    case .success(let size)?:
                        cachedCount += 1
                        bytes += size
                        files.append(GameFileRecord(key: key, url: key.rawValue, state: .cached, reason: nil, revision: revisions[key]))
                    case .failure(let failure)?:
                        failures.append(.init(url: key.rawValue, reason: failure.reason))
                        files.append(
                            GameFileRecord(key: key, url: key.rawValue, state: .failed, reason: failure.reason, revision: revisions[key]))
                    case nil:
                        if let state = stored[key] {
                            cachedCount += 1
                            bytes += state.bodySize
                            // Only what is not precached yet, or takes a new revision, is written (an unchanged re-run writes nothing).
                            if state.kind != .precached || (revisions[key] != nil && revisions[key] != state.revision) {
                                alreadyCachedToPin.append(key)
                            }
                            files.append(GameFileRecord(key: key, url: key.rawValue, state: .cached, reason: nil, revision: state.revision))
                        } else {
                            let reason = "not downloaded"
                            failures.append(.init(url: key.rawValue, reason: reason))
                            files.append(GameFileRecord(key: key, url: key.rawValue, state: .failed, reason: reason, revision: nil))
                        }
                    }
                }
                for entry in refused {
                    listed += 1
                    failures.append(.init(url: entry.url, reason: entry.reason))
                }
                if cachedCount == listed {
                    state = .ready
                } else if cachedCount > 0 {
                    state = .partial
                } else {
                    state = .failed
                    error = "none of its \(listed) files could be cached"
                }
            }

            let displayName = displayNames[game.slug]
            let record = GameRecord(
                slug: game.slug,
                root: game.root.absoluteString,
                manifestURL: game.manifestURL.absoluteString,
                displayName: displayName,
                state: GameState(rawValue: state.rawValue) ?? .failed,
                filesListed: listed,
                filesCached: cachedCount,
                bytes: bytes,
                lastRun: now,
                lastError: error ?? failures.first.map { "\($0.url): \($0.reason)" },
                manifestRevision: revision,
                listOrder: order
            )
            do {
                if case .planned = game.state {
                    dropped.formUnion(try await self.store.saveGame(record, files: files))
                } else {
                    try await self.store.saveGameKeepingFiles(record)
                }
            } catch {
                self.logger.error("cannot record game", metadata: ["game": "\(game.slug)", "error": "\(error)"])
            }
            gameReports.append(
                PrecacheReport.Game(
                    slug: game.slug,
                    displayName: displayName,
                    root: game.root.absoluteString,
                    state: state,
                    filesListed: listed,
                    filesCached: cachedCount,
                    bytes: bytes,
                    error: error,
                    failures: failures
                )
            )
        }

        // Pages.
        var pageRecords: [PrecachePageRecord] = []
        var pageFailures: [PrecacheReport.Failure] = []
        for fetch in plan.fetches where fetch.kind == .page {
            switch results[fetch.key] {
            case .success?:
                pageRecords.append(
                    PrecachePageRecord(key: fetch.key, url: fetch.url.absoluteString, state: .cached, reason: nil, lastRun: now))
            case .failure(let failure)?:
                pageFailures.append(.init(url: fetch.url.absoluteString, reason: failure.reason))
                pageRecords.append(
                    PrecachePageRecord(key: fetch.key, url: fetch.url.absoluteString, state: .failed, reason: failure.reason, lastRun: now))
            case nil:
                break
            }
        }

        var removed = 0
        do {
            try await self.store.savePages(pageRecords)
            try await self.store.pin(alreadyCachedToPin, revisions: revisions)
            removed = try await self.store.pruneUnlisted(dropped).count
        } catch {
            self.logger.error("cannot record pages or clean up", metadata: ["error": "\(error)"])
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
        let elapsed = ContinuousClock.now - started
        return PrecacheReport(
            games: gameReports,
            pageFailures: pageFailures,
            pagesListed: plan.fetches.filter { $0.kind == .page }.count,
            listProblems: list.problems.map(\.description),
            alreadyCached: plan.alreadyCachedCount,
            downloaded: downloaded,
            downloadedBytes: downloadedBytes,
            failed: failed,
            excluded: plan.excludedCount,
            removed: removed,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
    }

    // MARK: - Manifests

    private func fetchManifest(_ game: GameSource, limiter: HostLimiter) async -> (ManifestOutcome, String?) {
        let manifest: SmallResponse
        do {
            manifest = try await self.fetchSmall(game.manifestURL, limit: PrecacheManifest.maximumBodySize, limiter: limiter)
        } catch {
            return (.fetchFailed(reason: error.reason), nil)
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
            return (.invalid(error), nil)
        }
        // The manifest is cached too, so the game can be listed offline.
        await self.storeSmall(manifest, url: game.manifestURL)

        var displayName: String?
        if let metadata = try? await self.fetchSmall(game.metadataURL, limit: GameMetadata.maximumBodySize, limiter: limiter),
            metadata.status == 200
        {
            displayName = GameMetadata.parse(body: metadata.body).displayName
            if metadata.isComplete {
                await self.storeSmall(metadata, url: game.metadataURL)
            } else {
                self.logger.warning(
                    "not storing a metadata.json larger than the limit",
                    metadata: ["url": "\(game.metadataURL.absoluteString)", "limit": "\(GameMetadata.maximumBodySize)"]
                )
            }
        }
        return (.parsed(parsed), displayName)
    }

    /// A response read whole (manifests, metadata: bounded sizes), or its first `limit + 1` bytes.
    private struct SmallResponse {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// False when reading stopped at the limit: `body` is a prefix, never to be stored.
        var isComplete: Bool
        var requestTime: Date
        var responseTime: Date

        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name }?.value
        }
    }

    /// GETs `url` from the network (`Cache-Control: no-cache`), reading at most `limit + 1` bytes
    /// (a longer body is a prefix, marked incomplete).
    private func fetchSmall(_ url: HTTPURL, limit: Int, limiter: HostLimiter) async throws(DownloadFailure) -> SmallResponse {
        try await self.withRetries(url) { () throws(DownloadFailure) -> SmallResponse in
            try await self.withHostSlot(url, limiter: limiter) { () throws(DownloadFailure) -> SmallResponse in
                let requestTime = Date()
                let response = try await self.execute(url, headers: [("Cache-Control", "no-cache"), ("Accept", "application/json")])
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

    private func storeSmall(_ response: SmallResponse, url: HTTPURL) async {
        guard response.isComplete else { return }
        do {
            let writer = try self.store.makeBodyWriter()
            try writer.write(contentsOf: response.body)
            _ = try await writer.commit(
                key: CacheKey(url: url, filter: self.options.queryFilter),
                head: StoredResponseHead(
                    url: url.absoluteString,
                    status: response.status,
                    headers: response.headers.map { HeaderField(name: $0.name, value: $0.value) },
                    requestTime: response.requestTime,
                    responseTime: response.responseTime
                ),
                kind: .precached,
                // What upstream declared, so a body cut short by the connection is not stored either.
                expectedLength: response.header("content-length").flatMap { Int64($0) } ?? Int64(response.body.count)
            )
        } catch {
            self.logger.warning("cannot store", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
        }
    }

    // MARK: - Downloads

    /// Why a download failed.
    struct DownloadFailure: Error, Sendable {
        var reason: String
        var isTransient: Bool
    }

    /// Downloads one planned file into the store as a pinned entry; returns its size.
    private func download(_ fetch: PlannedFetch, position: Int, limiter: HostLimiter) async -> Result<Int64, DownloadFailure> {
        do {
            let size = try await self.withRetries(fetch.url) { () throws(DownloadFailure) -> Int64 in
                // The host's slot is held while the body arrives, not while it is synced and indexed:
                // the connection is free again by then, and the next file can come down it.
                let received = try await self.withHostSlot(fetch.url, position: position, limiter: limiter) {
                    () throws(DownloadFailure) -> ReceivedBody in
                    try await self.receive(fetch)
                }
                return try await self.commit(received, for: fetch)
            }
            return .success(size)
        } catch {
            return .failure(error)
        }
    }

    /// A whole body written to a temporary file, not yet in the index.
    private struct ReceivedBody {
        var writer: BodyWriter
        var head: StoredResponseHead
        var declaredLength: Int64?
    }

    /// One GET of a planned file, its body streamed to a temporary file; the caller holds a host slot.
    private func receive(_ fetch: PlannedFetch) async throws(DownloadFailure) -> ReceivedBody {
        // Pages change between deploys: always ask the origin, never an intermediary's copy.
        let headers: [(name: String, value: String)] = fetch.url.isPage ? [("Cache-Control", "no-cache")] : []
        let requestTime = Date()
        let response = try await self.execute(fetch.url, headers: headers)
        let responseTime = Date()
        guard response.head.status == 200 else {
            throw DownloadFailure(
                reason: "answered HTTP \(response.head.status)",
                isTransient: RetryPolicy.isTransient(status: response.head.status)
            )
        }
        let writer: BodyWriter
        do {
            writer = try self.store.makeBodyWriter()
        } catch {
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        }
        do {
            for try await chunk in response.body {
                try chunk.withUnsafeReadableBytes { try writer.write($0) }
            }
        } catch let error as UpstreamError {
            writer.discard()
            throw DownloadFailure(reason: error.description, isTransient: RetryPolicy.isTransient(error))
        } catch {
            writer.discard()
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        }
        return ReceivedBody(
            writer: writer,
            head: StoredResponseHead(
                url: fetch.url.absoluteString,
                status: 200,
                headers: response.head.headers.map { HeaderField(name: $0.name, value: $0.value) },
                requestTime: requestTime,
                responseTime: responseTime
            ),
            declaredLength: response.head.headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int64($0.value) }
        )
    }

    /// Syncs a received body and indexes it as a pinned entry; returns its size.
    private func commit(_ received: ReceivedBody, for fetch: PlannedFetch) async throws(DownloadFailure) -> Int64 {
        do {
            let entry = try await received.writer.commit(
                key: fetch.key,
                head: received.head,
                kind: .precached,
                expectedLength: received.declaredLength,
                revision: fetch.revision
            )
            return entry.bodySize
        } catch let error as StoreError {
            if case .lengthMismatch = error {
                throw DownloadFailure(reason: "truncated body: \(error)", isTransient: true)
            }
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        } catch {
            throw DownloadFailure(reason: "cannot write to the cache: \(error)", isTransient: false)
        }
    }

    /// One GET; the caller holds a host slot.
    private func execute(_ url: HTTPURL, headers: [(name: String, value: String)]) async throws(DownloadFailure) -> UpstreamResponse {
        var request = UpstreamRequest(method: "GET", url: url.absoluteString, headers: headers + [("Via", "1.1 larder")])
        request.connectTimeout = self.options.connectTimeout
        request.idleTimeout = self.options.idleTimeout
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
            await limiter.release(host)
            return value
        } catch {
            await limiter.release(host)
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
