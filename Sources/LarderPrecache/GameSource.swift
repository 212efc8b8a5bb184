import LarderHTTP
import LarderStore

/// A game named by a games list: where its manifest is and what its files are relative to.
public struct GameSource: Sendable, Hashable {
    /// The game's folder, without a trailing slash, query or fragment, e.g. `https://cdn.example/games/flipart`.
    public var root: HTTPURL
    /// The manifest to fetch: `<root>/offline.meta.json`, or the manifest URL the list named.
    public var manifestURL: HTTPURL
    /// `<root>/metadata.json`, which may give the game's display name.
    public var metadataURL: HTTPURL
    /// A short name for the game, unique within its list: the root's last path segment reduced to
    /// `[a-z0-9-]` (e.g. `flipart`), with `-2`, `-3`... added when two games would share one.
    public var slug: String
    /// The 1-based line of the list that named the game.
    public var line: Int
    /// The page the game is played on (`GAME-URL page PAGE-URL`), without fragment, or nil: fetched
    /// on every run with the game's files, it is the first file the game needs to be ready.
    public var page: HTTPURL?

    /// Creates a game source; ``GamesList/parse(_:source:)`` makes these from a list's lines.
    public init(root: HTTPURL, manifestURL: HTTPURL, metadataURL: HTTPURL, slug: String, line: Int, page: HTTPURL? = nil) {
        self.root = root
        self.manifestURL = manifestURL
        self.metadataURL = metadataURL
        self.slug = slug
        self.line = line
        self.page = page
    }
}
