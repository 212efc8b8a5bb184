import LarderHTTP
import LarderStore

/// One game of a precache plan, and what precaching it involves.
public struct PlannedGame: Sendable, Hashable {
    /// What happens to the game.
    public enum State: Sendable, Hashable {
        /// Its manifest says `"skip": true`; nothing is precached.
        case skipped
        /// Its manifest could not be fetched or used: `MANIFEST_URL: reason`.
        case failed(reason: String)
        /// Its files are precached.
        ///
        /// - `files`: the keys the game needs to be ready (its page, then the manifest files less
        ///   excluded and refused ones, in manifest order); `alreadyCached + toFetch == files.count`.
        ///   A file another game fetches counts in `toFetch` for both games.
        /// - `excluded`: how many manifest files `--exclude` left out.
        /// - `refused`: entries the manifest parser refused (other origin, not http(s)).
        case planned(files: [CacheKey], alreadyCached: Int, toFetch: Int, excluded: Int, refused: [RefusedEntry])
    }

    /// The game's slug, unique within the list.
    public var slug: String
    /// The game's root URL.
    public var root: HTTPURL
    /// The game's manifest URL.
    public var manifestURL: HTTPURL
    /// Where the game's display name may be read (`<root>/metadata.json`).
    public var metadataURL: HTTPURL
    /// The display name, once the runner has read `metadata.json`; nil until then.
    public var displayName: String?
    /// The 1-based line of the games list that named the game.
    public var line: Int
    /// Skipped, failed or planned.
    public var state: State
    /// The page the game is played on, or nil; when planned, the first of its files.
    public var page: HTTPURL?

    /// Creates a planned game.
    public init(
        slug: String,
        root: HTTPURL,
        manifestURL: HTTPURL,
        metadataURL: HTTPURL,
        displayName: String?,
        line: Int,
        state: State,
        page: HTTPURL? = nil
    ) {
        self.slug = slug
        self.root = root
        self.manifestURL = manifestURL
        self.metadataURL = metadataURL
        self.displayName = displayName
        self.line = line
        self.state = state
        self.page = page
    }
}
