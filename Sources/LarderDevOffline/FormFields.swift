import LarderHTTP

/// The fields of an `application/x-www-form-urlencoded` text: a POST form body or a URL query.
///
/// Parsed as the WHATWG URL standard says: `&`-separated `name=value` pairs, `+` is a space, `%XX`
/// escapes are bytes of UTF-8 (invalid sequences become U+FFFD; a `%` without two hex digits stays).
struct FormFields: Sendable {
    /// The pairs, in order (a name may repeat).
    var pairs: [(name: String, value: String)]

    /// Parses `text` (nil or empty: no fields).
    init(_ text: String?) {
        guard let text, !text.isEmpty else {
            self.pairs = []
            return
        }
        self.pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            return (name, value)
        }
    }

    /// The first value of `name`, or nil.
    subscript(_ name: String) -> String? {
        self.pairs.first { $0.name == name }?.value
    }

    /// `name=value&...` with every byte but letters, digits and `-._~` percent-encoded, for links.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(PercentEncoding.encodingAllButUnreserved($0.0.utf8))=\(PercentEncoding.encodingAllButUnreserved($0.1.utf8))" }
            .joined(separator: "&")
    }

    /// A name or value: `+` is a space (in forms only), then escapes are decoded.
    private static func decode(_ text: Substring) -> String {
        PercentEncoding.decoded(text.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 })
    }
}
