/// A URL reference as a manifest lists it (`flipart/a.js`, `../x`, `/abs`, `?q`, `https://...`),
/// split into its RFC 3986 components and resolved as a browser would.
public struct URLReference {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// Splits `text` after the clean-up a browser's URL parser does first: surrounding spaces and
    /// control characters are trimmed, tabs and newlines removed, `\` before the query read as `/`
    /// (for http(s) and relative references), and spaces, `"`, `<`, `>`, `` ` ``, `{` and `}`
    /// percent-encoded.
    public init(_ text: String) {
        var bytes = Array(text.utf8)
        while let first = bytes.first, first <= 0x20 {
            bytes.removeFirst()
        }
        while let last = bytes.last, last <= 0x20 {
            bytes.removeLast()
        }
        bytes.removeAll { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }

        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(bytes.count)
        let scheme = Self.schemeEnd(bytes).map { String(decoding: bytes[..<$0], as: UTF8.self).lowercased() }
        let slashesBackslashes = scheme == nil || scheme == "http" || scheme == "https"
        var inPath = true
        for byte in bytes {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                inPath = false
            }
            switch byte {
            case UInt8(ascii: "\\") where inPath && slashesBackslashes:
                cleaned.append(UInt8(ascii: "/"))
            case UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"),
                UInt8(ascii: "{"), UInt8(ascii: "}"):
                cleaned.append(contentsOf: PercentEncoding.escape(byte))
            default:
                cleaned.append(byte)
            }
        }

        var rest = cleaned[...]
        if let end = Self.schemeEnd(cleaned) {
            self.scheme = String(decoding: cleaned[..<end], as: UTF8.self).lowercased()
            rest = cleaned[(end + 1)...]
        } else {
            self.scheme = nil
        }
        if rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) {
            let start = rest.startIndex + 2
            let end =
                rest[start...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                } ?? rest.endIndex
            self.authority = String(decoding: rest[start..<end], as: UTF8.self)
            rest = rest[end...]
        } else {
            self.authority = nil
        }
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            self.fragment = String(decoding: rest[(hash + 1)...], as: UTF8.self)
            rest = rest[..<hash]
        } else {
            self.fragment = nil
        }
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            self.query = String(decoding: rest[(question + 1)...], as: UTF8.self)
            rest = rest[..<question]
        } else {
            self.query = nil
        }
        self.path = String(decoding: rest, as: UTF8.self)
    }

    /// The target URL string of this reference against `base` (RFC 3986 5.2.2), and its scheme.
    public func resolved(against base: HTTPURL) -> (scheme: String, url: String) {
        let scheme: String
        let authority: String?
        let path: String
        let query: String?
        if let ownScheme = self.scheme {
            scheme = ownScheme
            authority = self.authority
            path = Self.removingDotSegments(self.path)
            query = self.query
        } else {
            scheme = base.scheme
            if let ownAuthority = self.authority {
                authority = ownAuthority
                path = Self.removingDotSegments(self.path)
                query = self.query
            } else {
                authority = base.authority
                if self.path.isEmpty {
                    path = base.path
                    query = self.query ?? base.query
                } else {
                    if self.path.hasPrefix("/") {
                        path = Self.removingDotSegments(self.path)
                    } else {
                        path = Self.removingDotSegments(Self.merge(basePath: base.path, referencePath: self.path))
                    }
                    query = self.query
                }
            }
        }

        var url = "\(scheme):"
        if let authority {
            url += "//\(authority)"
        }
        url += path
        if let query {
            url += "?\(query)"
        }
        if let fragment = self.fragment {
            url += "#\(fragment)"
        }
        return (scheme, url)
    }

    /// RFC 3986 5.2.3, for a base that always has an authority.
    private static func merge(basePath: String, referencePath: String) -> String {
        guard let slash = basePath.lastIndex(of: "/") else {
            return "/" + referencePath
        }
        return basePath[...slash] + referencePath
    }

    /// RFC 3986 5.2.4 `remove_dot_segments`, for a path of a resolved reference or of a cache key.
    public static func removingDotSegments(_ path: String) -> String {
        let bytes = Array(path.utf8)
        let removed = Self.removingDotSegments(bytes)
        return removed.count == bytes.count ? path : String(decoding: removed, as: UTF8.self)
    }

    /// RFC 3986 5.2.4 `remove_dot_segments`, on the bytes of a path.
    public static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        // A dot segment starts the path or follows a "/": without one there is nothing to remove
        // (the common case, a manifest's plain `assets/app.js`), so the path is returned as it is.
        guard path.first == dot || zip(path, path.dropFirst()).contains(where: { $0 == slash && $1 == dot }) else {
            return path
        }
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

    /// The index of the `:` ending a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), if any.
    private static func schemeEnd(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first, Self.isAlpha(first) else {
            return nil
        }
        for (index, byte) in bytes.enumerated().dropFirst() {
            if byte == UInt8(ascii: ":") {
                return index
            }
            let allowed =
                Self.isAlpha(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if !allowed {
                return nil
            }
        }
        return nil
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
