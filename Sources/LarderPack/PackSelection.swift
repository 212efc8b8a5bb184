import LarderHTTP

/// What to put in a pack: the games and pages a games list names, as keys the cache knows them by
/// (the CLI turns a games.txt into this, with the cache's query filter).
public struct PackSelection: Sendable {
    /// A game, found in the cache by its root.
    public struct Game: Sendable {
        /// The game root URL.
        public var root: String
        /// Its manifest's and `metadata.json`'s keys: stored with the game, exported with it when present.
        public var companionKeys: [CacheKey]

        /// Creates a selected game.
        public init(root: String, companionKeys: [CacheKey]) {
            self.root = root
            self.companionKeys = companionKeys
        }
    }

    /// A page listed on its own.
    public struct Page: Sendable {
        /// Its cache key.
        public var key: CacheKey
        /// The URL as listed, for messages.
        public var url: String

        /// Creates a selected page.
        public init(key: CacheKey, url: String) {
            self.key = key
            self.url = url
        }
    }

    /// The games, in list order.
    public var games: [Game]
    /// The pages, in list order.
    public var pages: [Page]

    /// Creates a selection.
    public init(games: [Game], pages: [Page]) {
        self.games = games
        self.pages = pages
    }
}
