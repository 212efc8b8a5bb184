import LarderHTTP
import LarderStore

/// Turns a games list and its fetched manifests into a ``PrecachePlan``. Pure: the store is only
/// consulted through the `cachedState` closure.
///
/// Rules:
/// - Pages are always fetched again (they change between deploys) and come first, once per key.
/// - Then each game in list order: a skipped manifest plans nothing, a failed one fails only that
///   game, otherwise each file not excluded is planned in manifest order.
/// - A file already stored is not fetched again (hashed assets are immutable), unless the manifest
///   gives it a Workbox revision other than the stored one, or it is an unrevisioned page (a
///   game's `index.html` is not hashed: a new deploy changes it under the same name).
/// - A file two games list (or a page a manifest lists) is fetched once, by the first, but counts
///   towards both games' readiness.
/// - `--exclude` globs apply to manifest files, never to the pages the list names.
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
    public func plan(
        gamesList: GamesList,
        manifests: [String: ManifestOutcome],
        cachedState: (CacheKey) -> CachedState?
    ) -> PrecachePlan {
        var fetches: [PlannedFetch] = []
        var fetchIndexByKey: [CacheKey: Int] = [:]
        var cachedKeys: Set<CacheKey> = []
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
                for file in manifest.files {
                    if self.excludes.contains(where: { $0.matches(file.key) }) {
                        excluded += 1
                        excludedKeys.insert(file.key)
                        continue
                    }
                    files.append(file.key)
                    listedKeys.insert(file.key)
                    if let index = fetchIndexByKey[file.key] {
                        if !fetches[index].games.contains(game.slug) {
                            fetches[index].games.append(game.slug)
                        }
                        toFetch += 1
                    } else if file.revision != nil || !file.url.isPage,
                        cachedKeys.contains(file.key) || self.isCurrent(file, cachedState(file.key))
                    {
                        cachedKeys.insert(file.key)
                        alreadyCached += 1
                    } else {
                        fetchIndexByKey[file.key] = fetches.count
                        fetches.append(
                            PlannedFetch(
                                url: file.url,
                                key: file.key,
                                kind: .asset,
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
                    state: state
                )
            )
        }

        return PrecachePlan(
            fetches: fetches,
            games: games,
            manifestsToStore: manifestsToStore,
            keysListedByAnyManifest: listedKeys,
            alreadyCachedCount: cachedKeys.count,
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
