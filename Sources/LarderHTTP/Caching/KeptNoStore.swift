/// Pages a site marks `no-store`, kept for offline use because the user chose the site on
/// /dev/offline (**Keep this site's pages for offline use**; docs/SERVING.md, "Pages marked
/// no-store, kept on request"). This departs from RFC 9111 section 5.2.2.5 at the user's own
/// request, as a browser's save-page does, and only for the sites the user chose:
/// - an answer to a GET is kept only when `no-store` in the response is all that keeps it from
///   being stored (a `no-store` in the request still stores nothing, and so does any other
///   refusal: a status, `Vary: *`, a HEAD, `network-only`);
/// - it is kept for the owner who saw it (``AnswerOwner``), whatever its credentials, so it never
///   answers another client, is never packed and is never an immediate hit (those are shared only);
/// - it answers only while the origin cannot (``CacheDecision/disconnectedUse(_:precached:rule:now:)``):
///   online the origin is always asked, without the kept copy's validators, and its answer
///   replaces it.
///
/// A kept copy needs no mark of its own in the store: a runtime, unkeyed entry with an owner whose
/// stored `Cache-Control` says `no-store` (without `must-understand`, which stores by its own rules)
/// can only have been stored by this rule (``isKept(headers:varyRequestHeaders:precached:keyed:)``).
public enum KeptNoStore {
    /// The `Cache-Status` detail of a kept copy's answers, and of the relayed answer that stored it.
    public static let detail = "kept-no-store"

    /// Whether an upstream answer to a GET or HEAD (the inputs of
    /// ``Storability/forwarded(isHead:strategy:request:status:response:ignoringResponseNoStore:)``)
    /// is kept for its owner: the user chose its site (`siteChosen`), and it is refused for the
    /// response's `no-store` alone.
    public static func keeps(
        isHead: Bool, strategy: CachingStrategy, request: some HeaderFields, status: Int, response: [HeaderField], siteChosen: Bool
    ) -> Bool {
        guard siteChosen,
            Storability.forwarded(isHead: isHead, strategy: strategy, request: request, status: status, response: response)
                == .notStorable(reason: "no-store")
        else { return false }
        return Storability.forwarded(
            isHead: isHead, strategy: strategy, request: request, status: status, response: response, ignoringResponseNoStore: true)
            == .storable
    }

    /// Whether a stored entry is a kept copy: a runtime (not `precached`), unkeyed entry recorded
    /// with an owner (``AnswerOwner/recordedDigest(in:)``) whose response says `no-store` without
    /// `must-understand`. No other rule stores such an entry.
    public static func isKept(headers: [HeaderField], varyRequestHeaders: [HeaderField], precached: Bool, keyed: Bool) -> Bool {
        guard !precached, !keyed, AnswerOwner.recordedDigest(in: varyRequestHeaders) != nil else { return false }
        let directives = CacheControlDirectives(headers["cache-control"])
        return directives.contains("no-store") && !directives.contains("must-understand")
    }
}
