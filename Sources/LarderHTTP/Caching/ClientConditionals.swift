import Foundation

/// A client's own conditional GET or HEAD (`If-None-Match`, `If-Modified-Since`), evaluated by the
/// cache against a stored response it answers with (RFC 9111 section 4.3.2, RFC 9110 section 13.2.2).
public enum ClientConditionals {
    /// Whether the client's copy is current, so the answer is `304 Not Modified`.
    public static func notModified(_ request: some HeaderFields, etag: String?, lastModified: String?, date: String?) -> Bool {
        let ifNoneMatch = request["if-none-match"]
        if !ifNoneMatch.isEmpty {
            // If-None-Match takes precedence over If-Modified-Since; weak comparison.
            let tags = ifNoneMatch.flatMap { CacheControlDirectives.splitList($0) }.map { $0.trimmingWhitespace() }
            if tags.contains("*") {
                return true
            }
            guard let etag else { return false }
            let stored = Self.opaque(etag)
            return tags.contains { Self.opaque($0) == stored }
        }
        guard let since = request["if-modified-since"].first.flatMap(HTTPDate.parse) else {
            return false
        }
        // Without Last-Modified the stored Date stands in for it (RFC 9111 section 4.3.2).
        guard let modified = (lastModified ?? date).flatMap(HTTPDate.parse) else {
            return false
        }
        return modified <= since
    }

    /// Whether the request carries a precondition of its own (RFC 9110 section 13.1:
    /// `If-None-Match`, `If-Modified-Since`, `If-Match`, `If-Unmodified-Since`), so that an origin
    /// may answer it with a 304 or a 412 rather than the representation.
    public static func hasPrecondition(_ request: some HeaderFields) -> Bool {
        Self.preconditionNames.contains { request.contains(name: $0) }
    }

    private static let preconditionNames = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since"]

    /// The headers a 304 carries from the stored response (RFC 9110 section 15.4.5).
    public static let notModifiedHeaderNames: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified",
    ]

    /// The tag as compared: weakness and the quotes dropped, so that a tag an origin sent unquoted
    /// (invalid, but common) matches the same tag quoted.
    private static func opaque(_ tag: String) -> Substring {
        var opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        if opaque.count >= 2, opaque.first == "\"", opaque.last == "\"" {
            opaque = opaque.dropFirst().dropLast()
        }
        return opaque
    }
}

/// The stored response's headers updated from a `304 Not Modified` (RFC 9111 section 3.2): every
/// header the 304 carries replaces the stored ones of that name, except `Content-Length`, framing,
/// and `Content-Encoding`, which describes the stored bytes (section 3.2 lets a cache keep what
/// assures the stored response's integrity).
public enum NotModifiedMerge {
    private static let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding"]

    public static func merge(stored: [HeaderField], notModified: [HeaderField]) -> [HeaderField] {
        let incoming = notModified.filter { !Self.kept.contains($0.name.lowercased()) }
        let replaced = Set(incoming.map { $0.name.lowercased() })
        return stored.filter { !replaced.contains($0.name.lowercased()) } + incoming
    }
}
