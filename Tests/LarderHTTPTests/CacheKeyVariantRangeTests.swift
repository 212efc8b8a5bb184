import Testing

@testable import LarderHTTP

/// `CacheKey.variantKeys`: the index range the store reads and deletes a key's variants by holds
/// exactly that key's variants, compared byte by byte as the index compares keys.
struct CacheKeyVariantRangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        /// A key stored in the index.
        var stored: String
        /// Whether it is one of the variants of ``key``.
        var isVariant: Bool

        var testDescription: String { self.stored }
    }

    static let key = CacheKey(storedRawValue: "https://example.com/p")

    static let cases: [Case] = [
        Case(stored: "https://example.com/p#vary=", isVariant: true),
        Case(stored: "https://example.com/p#vary=00c0ffee00c0ffee", isVariant: true),
        Case(stored: "https://example.com/p#vary=ffffffffffffffff", isVariant: true),
        // The key itself and its partial entry are not variants.
        Case(stored: "https://example.com/p", isVariant: false),
        Case(stored: "https://example.com/p#partial", isVariant: false),
        // Keys the key is a prefix of, and their variants.
        Case(stored: "https://example.com/p2", isVariant: false),
        Case(stored: "https://example.com/p2#vary=00c0ffee00c0ffee", isVariant: false),
        Case(stored: "https://example.com/p/q#vary=00c0ffee00c0ffee", isVariant: false),
        Case(stored: "https://example.com/p?a=1#vary=00c0ffee00c0ffee", isVariant: false),
        Case(stored: "https://example.com/p!#vary=00c0ffee00c0ffee", isVariant: false),
        // A prefix of the key, and its variants.
        Case(stored: "https://example.com/#vary=00c0ffee00c0ffee", isVariant: false),
        Case(stored: "https://example.com/#vary=p", isVariant: false),
    ]

    @Test(arguments: Self.cases)
    func holdsExactlyTheKeysVariants(_ testCase: Case) {
        let range = Self.key.variantKeys
        let stored = Array(testCase.stored.utf8)
        let inRange =
            !stored.lexicographicallyPrecedes(Array(range.lowerBound.utf8))
            && stored.lexicographicallyPrecedes(Array(range.upperBound.utf8))
        #expect(inRange == testCase.isVariant)
        let storedKey = CacheKey(storedRawValue: testCase.stored)
        #expect(inRange == (storedKey.isVariant && storedKey.plain == Self.key))
    }

    @Test
    func holdsWhatVariantMakes() {
        for name in ["", "0", "00c0ffee00c0ffee", "~~~~"] {
            #expect(Self.key.variantKeys.contains(Self.key.variant(name).rawValue))
        }
    }

    @Test
    func isTheKeyFollowedByTheSuffixes() {
        let range = Self.key.variantKeys
        #expect(range.lowerBound == Self.key.rawValue + CacheKey.variantKeySuffixes.lowerBound)
        #expect(range.upperBound == Self.key.rawValue + CacheKey.variantKeySuffixes.upperBound)
    }
}
