import LarderHTTP
import LarderStore

/// One download the runner has to make.
public struct PlannedFetch: Sendable, Hashable {
    /// What is fetched.
    public enum Kind: String, Sendable, Hashable {
        /// A page from the games list (on its own, or a game's): always fetched again, never
        /// taken from an intermediary's cache.
        case page
        /// A file a manifest lists: fetched when missing (or its Workbox revision changed), served cache-first.
        case asset
    }

    /// The URL to fetch.
    public var url: HTTPURL
    /// The key to store the body under.
    public var key: CacheKey
    /// Page or asset.
    public var kind: Kind
    /// The slugs of the games whose readiness waits on this file (empty for a page no game lists).
    /// A file a game waits on is staged, and installed when the game's new version is complete.
    public var games: [String]
    /// The Workbox revision to record with the stored body, if the manifest gives one.
    public var revision: String?

    /// Creates a planned fetch.
    public init(url: HTTPURL, key: CacheKey, kind: Kind, games: [String], revision: String?) {
        self.url = url
        self.key = key
        self.kind = kind
        self.games = games
        self.revision = revision
    }
}
