extension HeaderField {
    /// Header names that must never be replayed from a cache to another request, lower-cased.
    public static let notReplayedNames: Set<String> = ["set-cookie", "set-cookie2"]

    /// The fields of `headers` that may be stored and replayed from the cache: hop-by-hop fields,
    /// the fields that `Connection` names, and `Set-Cookie`/`Set-Cookie2` are dropped; order is kept.
    public static func storable(_ headers: [HeaderField]) -> [HeaderField] {
        let dropped = HopByHopHeaders.connectionSpecificNames(headers).union(Self.notReplayedNames)
        return headers.filter { !dropped.contains($0.name.lowercased()) }
    }
}
