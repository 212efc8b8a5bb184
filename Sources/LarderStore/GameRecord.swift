import struct Foundation.Date

/// What the store records about one game after a precache run (see ``Store/saveGame(_:files:)``).
public struct GameRecord: Sendable, Hashable {
    /// The game's identifier, unique in the store (derived from its root by the precache runner).
    public var slug: String
    /// The game root URL (the manifest's folder).
    public var root: String
    /// The URL of the game's `offline.meta.json` (or other manifest).
    public var manifestURL: String
    /// The display name from the game's `metadata.json`, when known.
    public var displayName: String?
    /// How far the last run got.
    public var state: GameState
    /// How many files the manifest listed.
    public var filesListed: Int
    /// How many of them are cached.
    public var filesCached: Int
    /// The bytes of the cached files' bodies.
    public var bytes: Int64
    /// When the game was last precached.
    public var lastRun: Date
    /// Why the last run failed, or nil.
    public var lastError: String?
    /// A revision of the manifest itself (e.g. its ETag or hash), when the runner keeps one.
    public var manifestRevision: String?
    /// The game's place in games.txt order; ``Store/games()`` sorts by it.
    public var listOrder: Int
    /// The page the game is played on (`GAME-URL page PAGE-URL` in games.txt), or nil. It is the
    /// first file of the game's file list, so the game is ready only when its page is cached.
    public var pageURL: String?

    /// Creates a game record.
    public init(
        slug: String,
        root: String,
        manifestURL: String,
        displayName: String?,
        state: GameState,
        filesListed: Int,
        filesCached: Int,
        bytes: Int64,
        lastRun: Date,
        lastError: String?,
        manifestRevision: String?,
        listOrder: Int,
        pageURL: String? = nil
    ) {
        self.slug = slug
        self.root = root
        self.manifestURL = manifestURL
        self.displayName = displayName
        self.state = state
        self.filesListed = filesListed
        self.filesCached = filesCached
        self.bytes = bytes
        self.lastRun = lastRun
        self.lastError = lastError
        self.manifestRevision = manifestRevision
        self.listOrder = listOrder
        self.pageURL = pageURL
    }

    /// Whether the record describes a complete version: ready, with every listed file cached. A
    /// precache run keeps such a version until a new one is complete.
    public var isComplete: Bool {
        self.state == .ready && self.filesCached == self.filesListed
    }
}
