/// Which page a write comes from, as the browser says it, and so whether a queue route may queue
/// it (docs/SERVING.md, "Who may queue a write"): a queued write is kept, replayed and may replace
/// another, so only the app's own pages may queue one, never a page of another site posting to
/// the same URL.
public enum WriteSource: Sendable, Hashable {
    /// Neither `Origin` nor `Sec-Fetch-Site`: not from a page (curl, a native app). Queued as the
    /// route says.
    case noPage
    /// A page of the URL's own site (``AnswerOwner/isCrossSite(_:url:)`` says no: the browser
    /// says `same-origin`, `same-site` or `none`, working the site out with the public suffix
    /// list, or, without `Sec-Fetch-Site`, the `Origin` is the URL's own), or one whose origin
    /// the route lists in `pageOrigins`.
    case ownPage
    /// Another site, or an opaque origin (`Origin: null`): forwarded, never queued.
    case otherSite

    /// Where a write to `url` with `request`'s headers comes from; `pageOrigins` are normalised
    /// origins (``HTTPURL/canonicalOrigin(_:)``).
    public init(url: HTTPURL, request: some HeaderFields, pageOrigins: Set<String>) {
        let origin = request.first(name: "origin")
        if let origin, let canonical = HTTPURL.canonicalOrigin(origin.trimmingWhitespace()), pageOrigins.contains(canonical) {
            self = .ownPage
        } else if AnswerOwner.isCrossSite(request, url: url) {
            self = .otherSite
        } else if origin == nil && !request.contains(name: "sec-fetch-site") {
            self = .noPage
        } else {
            self = .ownPage
        }
    }

    /// Whether a queue route may queue the write (and let it replace another).
    public var mayQueue: Bool {
        self != .otherSite
    }
}
