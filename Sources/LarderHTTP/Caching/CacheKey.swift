/// The normalised URL a response is stored under.
///
/// Normalisation: scheme and host lower-cased; the default port dropped; an empty path becomes `/`;
/// percent-escapes of unreserved characters decoded and other escapes given upper-case hex (in path
/// and query); dot segments removed (RFC 3986 5.2.4); the fragment removed; query parameters kept in
/// order except those whose percent-decoded name the filter ignores, and `?` dropped when nothing
/// is left. An IPv6 host is written in brackets.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The normalised URL, e.g. `https://cdn.example/games/flipart/index.html?v=2`.
    public let rawValue: String

    /// The key for a parsed URL.
    public init(url: HTTPURL, filter: QueryParameterFilter = .default) {
        var key = "\(url.scheme)://\(url.authority)"

        let path = URLReference.removingDotSegments(PercentEncoding.normalized(Array(url.path.utf8)))
        key += path.isEmpty ? "/" : String(decoding: path, as: UTF8.self)

        if let query = url.query {
            let kept = Array(query.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
                .filter { parameter in
                    let name = parameter.prefix { $0 != UInt8(ascii: "=") }
                    return !filter.ignores(PercentEncoding.decoded(Array(name)))
                }
                .map { String(decoding: PercentEncoding.normalized(Array($0)), as: UTF8.self) }
                .joined(separator: "&")
            if !kept.isEmpty {
                key += "?\(kept)"
            }
        }
        self.rawValue = key
    }

    /// Parses `string` and returns its key.
    public init(url string: String, filter: QueryParameterFilter = .default) throws(URLParseError) {
        self.init(url: try HTTPURL(parsing: string), filter: filter)
    }

    /// Wraps a key read back from the index, which was normalised when it was stored.
    public init(storedRawValue: String) {
        self.rawValue = storedRawValue
    }

    /// The normalised URL.
    public var description: String {
        self.rawValue
    }

    /// Orders keys by their normalised URL.
    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

extension CacheKey: Codable {
    /// Decodes a key encoded by ``encode(to:)``: a single string, taken as the normalised URL it was.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(storedRawValue: try container.decode(String.self))
    }

    /// Encodes the key as a single string, its normalised URL.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
}
