import LarderHTTP
import LarderStore

/// One used line of a games list.
public enum GamesListEntry: Sendable, Hashable {
    /// A page (`page URL`, or a lone URL whose path ends in `.html`), cached as it is.
    ///
    /// `url` has no fragment (a fragment never reaches the server and is not part of the cache
    /// key); `text` is the URL as written, fragment included, e.g. `.../runtime.html#gameplay=1a2b`.
    case page(url: HTTPURL, text: String)
    /// A game, named by its root or by its manifest URL, perhaps with its page.
    case game(GameSource)
    /// A dated series (`series MANIFEST-URL|URL-TEMPLATE [past=N] [future=N] [tz=Area/City] [from=YYYY-MM-DD]`).
    case series(SeriesSource)
}
