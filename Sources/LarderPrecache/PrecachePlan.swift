import LarderHTTP
import LarderStore

/// What a precache run will do: the downloads in order, and each game's state.
public struct PrecachePlan: Sendable, Hashable {
    /// The downloads, in the order the user needs them: pages (list order), then game by game
    /// (list order), each game's page, then its files in manifest order.
    public var fetches: [PlannedFetch]
    /// The games in list order, with their states.
    public var games: [PlannedGame]
    /// The parsed manifests (of planned and skipped games) to store, in list order.
    public var manifestsToStore: [PlannedManifest]
    /// The keys of every file a planned game needs, plus the keys of the manifests to store.
    ///
    /// For removing precached files no manifest lists any more. Pages are not in it, and the files
    /// of a game whose manifest failed are unknown, so cleanup must leave those games' files alone.
    public var keysListedByAnyManifest: Set<CacheKey>
    /// Files an interrupted run already fetched and staged for a game version it did not complete:
    /// not fetched again, they are installed when their game switches to its new version.
    public var stagedKeys: Set<CacheKey>
    /// How many distinct manifest files are already stored or staged and need no download.
    public var alreadyCachedCount: Int
    /// How many downloads are planned (``fetches``'s count).
    public var toFetchCount: Int
    /// How many distinct manifest files `--exclude` left out.
    public var excludedCount: Int

    /// Creates a plan.
    public init(
        fetches: [PlannedFetch],
        games: [PlannedGame],
        manifestsToStore: [PlannedManifest],
        keysListedByAnyManifest: Set<CacheKey>,
        stagedKeys: Set<CacheKey> = [],
        alreadyCachedCount: Int,
        toFetchCount: Int,
        excludedCount: Int
    ) {
        self.fetches = fetches
        self.games = games
        self.manifestsToStore = manifestsToStore
        self.keysListedByAnyManifest = keysListedByAnyManifest
        self.stagedKeys = stagedKeys
        self.alreadyCachedCount = alreadyCachedCount
        self.toFetchCount = toFetchCount
        self.excludedCount = excludedCount
    }
}
