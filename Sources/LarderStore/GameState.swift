/// How far the last precache run got with a game.
public enum GameState: String, Sendable, Codable {
    /// Every file the manifest lists is cached.
    case ready
    /// Some listed files are cached, others failed.
    case partial
    /// The manifest could not be used, or no listed file could be cached.
    case failed
    /// The manifest says `skip: true`; the game is not precached.
    case skipped
}
