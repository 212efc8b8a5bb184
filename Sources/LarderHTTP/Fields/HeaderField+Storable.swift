extension HeaderField {
    /// Header names that must never be replayed from a cache to another request, lower-cased.
    public static let notReplayedNames: Set<String> = ["set-cookie", "set-cookie2"]

    /// The fields of `headers` that may be stored and replayed from the cache: hop-by-hop fields,
    /// the fields that `Connection` names, `Set-Cookie`/`Set-Cookie2`, and the fields a qualified
    /// `no-cache="..."` names (they may not be reused without revalidation, RFC 9111 section
    /// 5.2.2.4, and a revalidation brings them again) are dropped; order is kept.
    public static func storable(_ headers: [HeaderField]) -> [HeaderField] {
        // Every stored response goes through here: the fixed sets are looked in as they are, and
        // a set is made only for names a `Connection` or `Cache-Control` field lists.
        let listed = HopByHopHeaders.connectionSpecificNames(headers)
        let cacheControl = headers["cache-control"]
        let noCache = cacheControl.isEmpty ? [] : Self.noCacheFieldNames(cacheControl)
        return headers.filter { field in
            let name = field.name.lowercased()
            return !listed.contains(name) && !Self.notReplayedNames.contains(name) && !noCache.contains(name)
        }
    }

    /// The field names of a qualified `no-cache` in these `Cache-Control` values, lower-cased.
    static func noCacheFieldNames(_ cacheControl: [String]) -> Set<String> {
        guard let names = CacheControlDirectives(cacheControl).argument("no-cache") else { return [] }
        return Set(names.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty })
    }
}
