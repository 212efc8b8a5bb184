/// A temporary redirect kept for disconnected use only (docs/SERVING.md, "Redirects"): a `302`,
/// `303` or `307` answer to a GET with no explicit freshness, which RFC 9111 section 3 would not
/// store. Larder stores it so that a form that redirects works when the origin cannot answer, but
/// never serves it while the origin answers: under the relaxed offline rule it answers only then
/// (`Cache-Status` detail `…+relaxed-status-302`), and a strict route does not serve it at all.
/// `301` and `308` are heuristically cacheable (RFC 9110 section 15.1) and stored as any other.
public enum DisconnectedRedirect {
    /// The temporary redirect statuses.
    public static let statuses: Set<Int> = [302, 303, 307]

    /// Whether a response with `status` is kept for disconnected use only: a temporary redirect
    /// without explicit freshness (``Storability/hasExplicitFreshness(_:expires:)``); with it,
    /// RFC 9111 stores and serves it as any response.
    public static func applies(status: Int, cacheControl: CacheControlDirectives, expires: [String]) -> Bool {
        self.statuses.contains(status) && !Storability.hasExplicitFreshness(cacheControl, expires: expires)
    }
}
