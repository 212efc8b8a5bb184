/// Globs of query parameter names that never take part in a cache key (tracking parameters).
///
/// A pattern matches a whole (percent-decoded) name; `*` matches any run of characters, every
/// other character matches itself, case-sensitively.
public struct QueryParameterFilter: Sendable, Hashable {
    /// The glob patterns, in the order given.
    public let patterns: [String]

    /// Creates a filter from glob patterns such as `utm_*`.
    public init(patterns: [String]) {
        self.patterns = patterns
    }

    /// `utm_*` and `fbclid`.
    public static let `default` = QueryParameterFilter(patterns: ["utm_*", "fbclid"])

    /// A filter that keeps every parameter.
    public static let none = QueryParameterFilter(patterns: [])

    /// Whether a parameter with this (percent-decoded) name is left out of cache keys.
    public func ignores(_ name: String) -> Bool {
        let name = Array(name.utf8)
        return self.patterns.contains { Self.glob(Array($0.utf8), matches: name) }
    }

    /// Wildcard matching with `*` only, backtracking to the last star (linear in practice).
    private static func glob(_ pattern: [UInt8], matches name: [UInt8]) -> Bool {
        var patternIndex = 0
        var nameIndex = 0
        var lastStar: Int?
        var nameAtLastStar = 0
        while nameIndex < name.count {
            if patternIndex < pattern.count, pattern[patternIndex] == UInt8(ascii: "*") {
                lastStar = patternIndex
                nameAtLastStar = nameIndex
                patternIndex += 1
            } else if patternIndex < pattern.count, pattern[patternIndex] == name[nameIndex] {
                patternIndex += 1
                nameIndex += 1
            } else if let star = lastStar {
                patternIndex = star + 1
                nameAtLastStar += 1
                nameIndex = nameAtLastStar
            } else {
                return false
            }
        }
        while patternIndex < pattern.count, pattern[patternIndex] == UInt8(ascii: "*") {
            patternIndex += 1
        }
        return patternIndex == pattern.count
    }
}
