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
        var key = "\(url.scheme)://"
        key += url.host.contains(":") ? "[\(url.host)]" : url.host
        if let port = url.port, port != url.defaultPort {
            key += ":\(port)"
        }

        let path = Self.removingDotSegments(PercentEncoding.normalized(Array(url.path.utf8)))
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

    /// RFC 3986 5.2.4 `remove_dot_segments`, on the bytes of an absolute path.
    public static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var input = path[...]
        var output: [UInt8] = []

        func hasPrefix(_ prefix: [UInt8]) -> Bool {
            input.starts(with: prefix)
        }
        func removeLastSegment() {
            if let last = output.lastIndex(of: slash) {
                output.removeSubrange(last...)
            } else {
                output.removeAll()
            }
        }

        while !input.isEmpty {
            if hasPrefix([dot, dot, slash]) {
                input = input.dropFirst(3)
            } else if hasPrefix([dot, slash]) {
                input = input.dropFirst(2)
            } else if hasPrefix([slash, dot, slash]) {
                input = input.dropFirst(2)
            } else if input.elementsEqual([slash, dot]) {
                input = [slash]
            } else if hasPrefix([slash, dot, dot, slash]) {
                input = input.dropFirst(3)
                removeLastSegment()
            } else if input.elementsEqual([slash, dot, dot]) {
                input = [slash]
                removeLastSegment()
            } else if input.elementsEqual([dot]) || input.elementsEqual([dot, dot]) {
                input = []
            } else {
                // Move the first segment, with its leading "/" if any, to the output.
                let searchStart = input.first == slash ? input.startIndex + 1 : input.startIndex
                let end = input[searchStart...].firstIndex(of: slash) ?? input.endIndex
                output.append(contentsOf: input[..<end])
                input = input[end...]
            }
        }
        return output
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
