import LarderHTTP
import LarderStore

/// One used line of a games list.
public enum GamesListEntry: Sendable, Hashable {
    /// A page (a URL whose path ends in `.html`), cached as it is.
    ///
    /// `url` has no fragment (a fragment never reaches the server and is not part of the cache
    /// key); `text` is the line as written, fragment included, e.g. `.../runtime.html#gameplay=1a2b`.
    case page(url: HTTPURL, text: String)
    /// A game, named by its root or by its manifest URL.
    case game(GameSource)
}
