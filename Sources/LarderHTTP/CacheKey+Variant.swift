extension CacheKey {
    /// What separates a key from a variant's name in the index: a fragment never survives
    /// normalisation, so no plain key contains `#`.
    public static let variantSeparator = "#vary="

    /// The key a response that varies on request headers is stored under: this key plus the
    /// variant's name (a digest of the request header values it was selected by).
    public func variant(_ name: String) -> CacheKey {
        CacheKey(storedRawValue: self.rawValue + Self.variantSeparator + name)
    }

    /// Whether this key names a variant (see ``variant(_:)``).
    public var isVariant: Bool {
        self.rawValue.contains(Self.variantSeparator)
    }
}
