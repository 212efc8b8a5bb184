import LarderHTTP
import LarderStore

/// Turns a games list and its fetched manifests into a ``PrecachePlan``. Pure: the store is only
/// consulted through the `cachedState` closure.
///
/// Rules:
/// - Pages are always fetched again (they change between deploys) and come first, once per key.
/// - Then each game in list order: a skipped manifest plans nothing, a failed one fails only that
///   game, otherwise its page (`GAME-URL page PAGE-URL`), always fetched, then each manifest file
///   not excluded, in manifest order.
/// - A file already stored is not fetched again (hashed assets are immutable), unless the manifest
///   gives it a Workbox revision other than the stored one, or it is an unrevisioned page (a
///   game's `index.html` is not hashed: a new deploy changes it under the same name). A body an
///   interrupted run staged for the file stands for it the same way (``PrecachePlan/stagedKeys``).
/// - A file two games list (or a page a manifest lists) is fetched once, by the first, but counts
///   towards both games' readiness.
/// - `--exclude` globs apply to manifest files, never to pages the list names.
public struct PrecachePlanner: Sendable {
    /// The `--exclude` globs.
    public var excludes: [ExcludeGlob]
    /// The query parameters left out of cache keys; it must be the filter manifests were parsed with.
    public var queryFilter: QueryParameterFilter

    /// Creates a planner.
    public init(excludes: [ExcludeGlob] = [], queryFilter: QueryParameterFilter = .default) {
        self.excludes = excludes
        self.queryFilter = queryFilter
    }

    /// Plans a run.
    ///
    /// - Parameters:
    ///   - gamesList: The parsed list.
    ///   - manifests: Each game's manifest outcome, by slug; a game missing here fails with
    ///     `its manifest was not fetched`.
    ///   - cachedState: What the store holds for a key, or nil when it holds nothing.
    ///   - stagedState: What the store holds staged for a key (a body an interrupted run fetched for
    ///     a game version it did not complete), or nil.
    public func plan(
        gamesList: GamesList,
        manifests: [String: ManifestOutcome],
        cachedState: (CacheKey) -> CachedState?,
        stagedState: (CacheKey) -> CachedState? = { _ in nil }
    ) -> PrecachePlan {
        var fetches: [PlannedFetch] = []
        var fetchIndexByKey: [CacheKey: Int] = [:]
        var cachedKeys: Set<CacheKey> = []
        var stagedKeys: Set<CacheKey> = []
        var excludedKeys: Set<CacheKey> = []
        var listedKeys: Set<CacheKey> = []
        var manifestsToStore: [PlannedManifest] = []
        var games: [PlannedGame] = []

        for url in gamesList.pageURLs {
            let key = CacheKey(url: url, filter: self.queryFilter)
            if fetchIndexByKey[key] == nil {
                fetchIndexByKey[key] = fetches.count
                fetches.append(PlannedFetch(url: url, key: key, kind: .page, games: [], revision: nil))
            }
        }

        for game in gamesList.games {
            let state: PlannedGame.State
            switch manifests[game.slug] {
            case nil:
                state = .failed(reason: "\(game.manifestURL): its manifest was not fetched")
            case .fetchFailed(let reason)?:
                state = .failed(reason: "\(game.manifestURL): \(reason)")
            case .invalid(let error)?:
                state = .failed(reason: error.description)
            case .parsed(let manifest)?:
                let manifestKey = CacheKey(url: game.manifestURL, filter: self.queryFilter)
                manifestsToStore.append(PlannedManifest(game: game.slug, url: game.manifestURL, key: manifestKey))
                listedKeys.insert(manifestKey)
                if manifest.skip {
                    state = .skipped
                    break
                }

                var files: [CacheKey] = []
                var alreadyCached = 0
                var toFetch = 0
                var excluded = 0
                var candidates = manifest.files.map { (file: $0, isPage: false) }
                if let page = game.page {
                    let file = ManifestFile(url: page, key: CacheKey(url: page, filter: self.queryFilter), revision: nil)
                    candidates.insert((file, true), at: 0)
                }
                // The page may be listed by the manifest as well: one file.
                var seen: Set<CacheKey> = []
                for (file, isPage) in candidates where seen.insert(file.key).inserted {
                    if !isPage, self.excludes.contains(where: { $0.matches(file.key) }) {
                        excluded += 1
                        excludedKeys.insert(file.key)
                        continue
                    }
                    files.append(file.key)
                    listedKeys.insert(file.key)
                    // Unrevisioned pages change under the same name: always fetched.
                    let mayBeKept = !isPage && (file.revision != nil || !file.url.isPage)
                    if let index = fetchIndexByKey[file.key] {
                        if !fetches[index].games.contains(game.slug) {
                            fetches[index].games.append(game.slug)
                        }
                        toFetch += 1
                    } else if mayBeKept, cachedKeys.contains(file.key) || self.isCurrent(file, cachedState(file.key)) {
                        cachedKeys.insert(file.key)
                        alreadyCached += 1
                    } else if mayBeKept, stagedKeys.contains(file.key) || self.isCurrent(file, stagedState(file.key)) {
                        stagedKeys.insert(file.key)
                        alreadyCached += 1
                    } else {
                        fetchIndexByKey[file.key] = fetches.count
                        fetches.append(
                            PlannedFetch(
                                url: file.url,
                                key: file.key,
                                kind: isPage ? .page : .asset,
                                games: [game.slug],
                                revision: file.revision
                            )
                        )
                        toFetch += 1
                    }
                }
                state = .planned(
                    files: files,
                    alreadyCached: alreadyCached,
                    toFetch: toFetch,
                    excluded: excluded,
                    refused: manifest.refused
                )
            }
            games.append(
                PlannedGame(
                    slug: game.slug,
                    root: game.root,
                    manifestURL: game.manifestURL,
                    metadataURL: game.metadataURL,
                    displayName: nil,
                    line: game.line,
                    state: state,
                    page: game.page
                )
            )
        }

        return PrecachePlan(
            fetches: fetches,
            games: games,
            manifestsToStore: manifestsToStore,
            keysListedByAnyManifest: listedKeys,
            stagedKeys: stagedKeys,
            alreadyCachedCount: cachedKeys.count + stagedKeys.count,
            toFetchCount: fetches.count,
            excludedCount: excludedKeys.count
        )
    }

    /// Whether a stored body can stand for this file: always for an unrevisioned (hashed) file,
    /// else only when it was fetched for the same Workbox revision.
    private func isCurrent(_ file: ManifestFile, _ state: CachedState?) -> Bool {
        guard let state else {
            return false
        }
        return file.revision == nil || file.revision == state.revision
    }
}
