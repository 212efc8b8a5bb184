/// Which page a write comes from, as the browser says it, and so whether a queue route may queue
/// it (docs/SERVING.md, "Who may queue a write"): a queued write is kept, replayed and may replace
/// another, so only the app's own pages may queue one, never a page of another site posting to
/// the same URL.
public enum WriteSource: Sendable, Hashable {
    /// Neither `Origin` nor `Sec-Fetch-Site`: not from a page (curl, a native app). Queued as the
    /// route says.
    case noPage
    /// The URL's own origin, its own site (`Sec-Fetch-Site: same-origin` or `same-site`, which
    /// the browser works out with the public suffix list), the user's own action
    /// (`Sec-Fetch-Site: none`), or an origin the route lists in `pageOrigins`.
    case ownPage
    /// Another site, or an opaque origin (`Origin: null`): forwarded, never queued.
    case otherSite

    /// Where a write to `url` with these `Origin` and `Sec-Fetch-Site` values comes from;
    /// `pageOrigins` are normalised origins (``HTTPURL/canonicalOrigin(_:)``).
    public init(url: HTTPURL, origin: String?, fetchSite: String?, pageOrigins: Set<String>) {
        let site = fetchSite?.trimmingWhitespace().lowercased()
        if let site, ["same-origin", "same-site", "none"].contains(site) {
            self = .ownPage
            return
        }
        if let origin, let canonical = HTTPURL.canonicalOrigin(origin.trimmingWhitespace()),
            canonical == url.origin || pageOrigins.contains(canonical)
        {
            self = .ownPage
            return
        }
        self = origin == nil && site == nil ? .noPage : .otherSite
    }

    /// Whether a queue route may queue the write (and let it replace another).
    public var mayQueue: Bool {
        self != .otherSite
    }
}
