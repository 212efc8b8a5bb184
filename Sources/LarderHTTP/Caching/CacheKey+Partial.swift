extension CacheKey {
    /// What separates a key from the mark of its partial entry in the index (see ``partial``).
    public static let partialSuffix = "#partial"

    /// The key a partial response (a 206, ``PartialContent``) for this key is stored under, beside
    /// the complete one, so that no lookup of the key itself can find it and serve it as whole.
    /// Like a keyed request's key it has a `#` that is not a variant's (``isKeyed``), so it never
    /// stands in for another request either (``OfflineMatch``).
    public var partial: CacheKey {
        CacheKey(storedRawValue: self.rawValue + Self.partialSuffix)
    }
}
