/// Whether a `200` to a HEAD that Larder forwarded updates the stored GET response it held for the
/// request (RFC 9111 section 4.3.5): only when it describes the same representation, which its
/// validators and length must not contradict. The update itself is a 304's (``NotModifiedMerge``).
public enum HeadResponseUpdate {
    /// Whether the HEAD's answer (`status`, `headers`) updates the stored response.
    public static func updates(storedStatus: Int, stored: [HeaderField], storedBodySize: Int64, status: Int, headers: [HeaderField])
        -> Bool
    {
        guard status == 200, storedStatus == 200 else { return false }
        for name in ["etag", "last-modified"] {
            if let mine = stored.first(name: name), let theirs = headers.first(name: name), mine != theirs {
                return false
            }
        }
        // A length says something only of the same coding of the body.
        if let length = headers.first(name: "content-length").flatMap({ Int64($0.trimmingWhitespace()) }),
            stored["content-encoding"] == headers["content-encoding"], length != storedBodySize
        {
            return false
        }
        return true
    }
}
