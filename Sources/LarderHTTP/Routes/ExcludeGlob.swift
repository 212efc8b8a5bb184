/// A `--exclude` pattern for manifest entries.
///
/// `*` matches any run of characters except `/`, `**` any run including `/`; every other character
/// matches itself, case-sensitively. A URL is excluded when the pattern matches the whole of its
/// cache key (`https://cdn.example/games/a.js?v=1`), or the whole of the key's path
/// (`/games/a.js`), or, for a pattern without `/`, the path's last segment (`a.js`), as in
/// `.gitignore`. So `*.map` leaves out every source map and `**/debug/**` everything under any
/// `debug` folder.
public struct ExcludeGlob: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String
    private let tokens: [Token]
    private let matchesLastSegment: Bool

    private enum Token: Hashable {
        case byte(UInt8)
        case star
        case doubleStar
    }

    /// Creates a glob; every string is a valid pattern.
    public init(_ pattern: String) {
        self.pattern = pattern
        var tokens: [Token] = []
        for byte in pattern.utf8 {
            if byte == UInt8(ascii: "*") {
                switch tokens.last {
                case .star?: tokens[tokens.count - 1] = .doubleStar
                case .doubleStar?: break
                default: tokens.append(.star)
                }
            } else {
                tokens.append(.byte(byte))
            }
        }
        self.tokens = tokens
        self.matchesLastSegment = !pattern.contains("/")
    }

    /// The pattern.
    public var description: String {
        self.pattern
    }

    /// Whether the URL with this key is excluded.
    public func matches(_ key: CacheKey) -> Bool {
        let url = Array(key.rawValue.utf8)
        if self.matches(url[...]) {
            return true
        }
        let path = Self.path(ofKey: url)
        if self.matches(path) {
            return true
        }
        if self.matchesLastSegment {
            let lastSlash = path.lastIndex(of: UInt8(ascii: "/")) ?? (path.startIndex - 1)
            return self.matches(path[(lastSlash + 1)...])
        }
        return false
    }

    /// The path of a normalised URL: from the `/` after `scheme://authority` up to `?`.
    private static func path(ofKey url: [UInt8]) -> ArraySlice<UInt8> {
        let separator = Array("://".utf8)
        var start = 0
        if let schemeEnd = url.firstRange(of: separator) {
            start = url[schemeEnd.upperBound...].firstIndex(of: UInt8(ascii: "/")) ?? url.endIndex
        }
        let end = url[start...].firstIndex(of: UInt8(ascii: "?")) ?? url.endIndex
        return url[start..<end]
    }

    /// Whole-subject matching: which prefixes of the subject the tokens so far can match, one token
    /// at a time (linear in the subject per token, never exponential).
    private func matches(_ subject: ArraySlice<UInt8>) -> Bool {
        let subject = Array(subject)
        let count = subject.count
        var reachable = [Bool](repeating: false, count: count + 1)
        reachable[0] = true
        for token in self.tokens {
            var next = [Bool](repeating: false, count: count + 1)
            switch token {
            case .byte(let byte):
                for position in 0..<count where reachable[position] && subject[position] == byte {
                    next[position + 1] = true
                }
            case .star, .doubleStar:
                var extending = false
                for position in 0...count {
                    if reachable[position] {
                        extending = true
                    }
                    next[position] = extending
                    if token == .star, position < count, subject[position] == UInt8(ascii: "/") {
                        extending = false
                    }
                }
            }
            reachable = next
            if !reachable.contains(true) {
                return false
            }
        }
        return reachable[count]
    }
}
