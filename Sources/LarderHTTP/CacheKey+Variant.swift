import Foundation

extension CacheKey {
    /// What separates a key from a variant's name in the index: a fragment never survives
    /// normalisation, so no plain key contains `#`.
    public static let variantSeparator = "#vary="

    /// What every variant key of a key sorts before: the key plus ``variantSeparator`` with its
    /// last character (`=`) replaced by the next one (`>`), so a variant range is
    /// `[key + variantSeparator, key + variantRangeEnd)`.
    public static let variantRangeEnd = "#vary>"

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
