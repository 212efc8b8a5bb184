import LarderHTTP

/// One file a game's manifest lists, and what became of it (see ``Store/saveGame(_:files:)``).
public struct GameFileRecord: Sendable, Hashable {
    /// The key the file is stored under.
    public var key: CacheKey
    /// The resolved URL, for display.
    public var url: String
    /// Whether it was cached, failed, excluded or refused.
    public var state: ListedFileState
    /// Why it failed or was refused, or nil.
    public var reason: String?
    /// The Workbox precache revision the manifest gave it, or nil.
    public var revision: String?

    /// Creates a game file record.
    public init(key: CacheKey, url: String, state: ListedFileState, reason: String? = nil, revision: String? = nil) {
        self.key = key
        self.url = url
        self.state = state
        self.reason = reason
        self.revision = revision
    }
}
