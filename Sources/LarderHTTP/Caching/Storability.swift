/// Whether a response may be stored, per RFC 9111 section 3 for a private cache.
public enum Storability: Sendable, Hashable {
    /// The response may be stored.
    case storable
    /// It may not; the reason is reported in `Cache-Status` `detail`.
    case notStorable(reason: String)

    /// Statuses that are cacheable without explicit freshness (RFC 9110 section 15.1
    /// "heuristically cacheable").
    public static let storableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether Larder stores a response with this status when it carries explicit freshness
    /// (RFC 9111 section 3): any final status it understands, except partial content, 304, and
    /// server errors (a 5xx must never push out the copy that disconnected operation relies on, nor
    /// stand, stored, where an offline stand-in would answer).
    public static func storableWithExplicitFreshness(_ status: Int) -> Bool {
        switch status {
        case 206, 304: return false
        case 200..<500: return true
        default: return status == 501
        }
    }

    /// The final statuses RFC 9110 defines, which `must-understand` (RFC 9111 section 5.2.2.3)
    /// lets a cache store whatever `no-store` says.
    public static let understoodStatuses: Set<Int> = Set(
        [200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307, 308]
            + Array(400...417) + [421, 422, 426] + Array(500...505))

    /// Whether a response says how long it may be stored (RFC 9111 section 3): `max-age`, `Expires`,
    /// `public` or `private`, which let a cache store any status it understands.
    public static func hasExplicitFreshness(_ directives: CacheControlDirectives, expires: [String]) -> Bool {
        directives.contains("max-age") || !expires.isEmpty || directives.contains("public") || directives.contains("private")
    }

    /// Decides storability. A temporary redirect without explicit freshness is storable for
    /// disconnected use only (``DisconnectedRedirect``); `ignoringResponseNoStore` asks whether
    /// the response would be stored but for its own `no-store` (``KeptNoStore``).
    /// - Parameters:
    ///   - method: the request method.
    ///   - status: the response status.
    ///   - requestCacheControl: the request's `Cache-Control` values.
    ///   - responseCacheControl: the response's `Cache-Control` values.
    ///   - vary: the response's `Vary` values.
    ///   - expires: the response's `Expires` values.
    ///   - contentType: the response's `Content-Type`.
    ///   - ignoringResponseNoStore: pass over the response's `no-store` (never the request's).
    public static func evaluate(
        method: String,
        status: Int,
        requestCacheControl: [String],
        responseCacheControl: [String],
        vary: [String],
        expires: [String] = [],
        contentType: String? = nil,
        ignoringResponseNoStore: Bool = false
    ) -> Storability {
        guard method == "GET" else { return .notStorable(reason: "method") }
        // A stream is not an object (docs/SERVING.md, HTTPS and streams): server-sent events never
        // end, so never store them.
        if let contentType, contentType.lowercased().trimmingWhitespace().hasPrefix("text/event-stream") {
            return .notStorable(reason: "event-stream")
        }
        let directives = CacheControlDirectives(responseCacheControl)
        let explicit = self.hasExplicitFreshness(directives, expires: expires)
        // A temporary redirect without freshness is kept for disconnected use only (DisconnectedRedirect).
        guard
            self.storableStatuses.contains(status) || (explicit && self.storableWithExplicitFreshness(status))
                || DisconnectedRedirect.applies(status: status, cacheControl: directives, expires: expires)
        else {
            return .notStorable(reason: "status-\(status)")
        }
        if CacheControlDirectives(requestCacheControl).contains("no-store") {
            return .notStorable(reason: "request-no-store")
        }
        // must-understand: a status the cache understands is stored by its own rules, whatever
        // no-store says; any other is not stored at all (RFC 9111 section 5.2.2.3).
        if directives.contains("must-understand") {
            guard self.understoodStatuses.contains(status) else { return .notStorable(reason: "must-understand") }
        } else if directives.contains("no-store"), !ignoringResponseNoStore {
            return .notStorable(reason: "no-store")
        }
        for value in vary {
            for token in value.split(separator: ",") where token.trimmingWhitespace() == "*" {
                return .notStorable(reason: "vary-star")
            }
        }
        return .storable
    }

    /// Whether Larder stores an upstream answer to a GET or HEAD it forwarded: not for a HEAD
    /// (no body), not under `network-only`, not for a client's precondition (a 412, say, is not
    /// the resource for everyone), then ``evaluate(method:status:requestCacheControl:responseCacheControl:vary:expires:contentType:)``
    /// on the response (`ignoringResponseNoStore` passed on).
    public static func forwarded(
        isHead: Bool,
        strategy: CachingStrategy,
        request: some HeaderFields,
        status: Int,
        response: [HeaderField],
        ignoringResponseNoStore: Bool = false
    ) -> Storability {
        if isHead {
            return .notStorable(reason: "head")
        }
        if strategy == .networkOnly {
            return .notStorable(reason: "network-only")
        }
        if request.contains(name: "if-match") || request.contains(name: "if-unmodified-since") {
            return .notStorable(reason: "precondition")
        }
        return self.evaluate(
            method: "GET",
            status: status,
            requestCacheControl: request["cache-control"],
            responseCacheControl: response["cache-control"],
            vary: response["vary"],
            expires: response["expires"],
            contentType: response["content-type"].first,
            ignoringResponseNoStore: ignoringResponseNoStore
        )
    }
}
