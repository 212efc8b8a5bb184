import Foundation

extension CacheKey {
    /// What separates a key from a variant's name in the index: a fragment never survives
    /// normalisation, so no plain key contains `#`.
    public static let variantSeparator = "#vary="

    /// What a variant key of any key ends in, as a range: a key's variant keys are the key
    /// followed by a suffix in it, from ``variantSeparator`` up to the separator with its last
    /// character (`=`) replaced by the next one (`>`). For a query that joins each key to its
    /// variants; ``variantKeys`` is one key's range.
    public static let variantKeySuffixes = Self.variantSeparator..<"#vary>"

    /// The keys this key's variants (``variant(_:)``) are stored under, as the index orders them:
    /// every one sorts in this range and no other key does (a plain key holds no `#`, so none
    /// sorts between a key and its own variants).
    public var variantKeys: Range<String> {
        (self.rawValue + Self.variantKeySuffixes.lowerBound)..<(self.rawValue + Self.variantKeySuffixes.upperBound)
    }

    /// The key a response that varies on request headers is stored under: this key plus the
    /// variant's name (a digest of the request header values it was selected by).
    public func variant(_ name: String) -> CacheKey {
        CacheKey(storedRawValue: self.rawValue + Self.variantSeparator + name)
    }

    /// Whether this key names a variant (see ``variant(_:)``).
    public var isVariant: Bool {
        self.rawValue.contains(Self.variantSeparator)
    }

    /// The plain key a variant (``variant(_:)``) or partial entry (``partial``) is stored beside;
    /// any other key is its own.
    public var plain: CacheKey {
        var end = self.rawValue.endIndex
        for marker in [Self.variantSeparator, Self.partialSuffix] {
            if let range = self.rawValue.range(of: marker), range.lowerBound < end {
                end = range.lowerBound
            }
        }
        return CacheKey(storedRawValue: String(self.rawValue[..<end]))
    }
}
