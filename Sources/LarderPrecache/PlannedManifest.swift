import LarderHTTP
import LarderStore

/// A parsed manifest the runner stores (as a precached entry, so the game can be listed offline).
public struct PlannedManifest: Sendable, Hashable {
    /// The slug of the game it belongs to.
    public var game: String
    /// Where it was fetched from.
    public var url: HTTPURL
    /// The key to store it under.
    public var key: CacheKey

    /// Creates a planned manifest.
    public init(game: String, url: HTTPURL, key: CacheKey) {
        self.game = game
        self.url = url
        self.key = key
    }
}
