#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsed absolute http(s) URL: the RFC 3986 subset that a forward proxy meets.
///
/// Parsing keeps percent-encoding as it is, except that bytes outside ASCII in the path, query and
/// fragment are percent-encoded (as a browser does before sending them).
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lower-cased.
    public var scheme: String
    /// The host, lower-cased; an IPv6 literal is kept without its brackets.
    public var host: String
    /// The explicit port, or nil when the URL has none.
    public var port: Int?
    /// The path as written (may be empty), percent-encoding untouched.
    public var path: String
    /// The query without its `?`, or nil when the URL has no `?`.
    public var query: String?
    /// The fragment without its `#`, or nil when the URL has no `#`.
    public var fragment: String?

    /// The longest URL accepted, in bytes of UTF-8.
    public static let maximumLength = 8 * 1024

    /// Parses an absolute `http://` or `https://` URL.
    ///
    /// Rejected, with an error naming the input: other schemes, a missing host, a port that is
    /// not 1...65535 digits, user information (`user:password@`), spaces and control
    /// characters, a malformed IPv6 literal, a non-ASCII host, and URLs over ``maximumLength`` bytes.
    public init(parsing string: String) throws(URLParseError) {
        func failure(_ reason: String) -> URLParseError {
            URLParseError(input: string, reason: reason)
        }

        let bytes = Array(string.utf8)
        guard !bytes.isEmpty else {
            throw failure("it is empty")
        }
        guard bytes.count <= Self.maximumLength else {
            throw failure("it is \(bytes.count) bytes long; the limit is \(Self.maximumLength)")
        }
        for (offset, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: " ") {
                throw failure("it contains a space at offset \(offset); spaces must be percent-encoded as %20")
            }
            if byte < 0x20 || byte == 0x7F {
                throw failure("it contains the control character 0x\(Self.hex(byte)) at offset \(offset)")
            }
        }

        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            throw failure("it is not an absolute URL; expected http://host/... or https://host/...")
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw failure("unsupported scheme \(scheme.debugDescription); only http and https URLs are accepted")
        }
        let authorityStart = colon + 3
        guard authorityStart <= bytes.count,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else {
            throw failure("expected \"//\" and a host after \"\(scheme):\"")
        }

        let authorityEnd =
            bytes[authorityStart...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        if authority.contains(UInt8(ascii: "@")) {
            throw failure("it contains user information (user:password@), which is not accepted")
        }

        let hostBytes: ArraySlice<UInt8>
        let portBytes: ArraySlice<UInt8>?
        var isIPv6 = false
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw failure("its IPv6 address has no closing \"]\"")
            }
            hostBytes = authority[(authority.startIndex + 1)..<close]
            let rest = authority[(close + 1)...]
            if rest.isEmpty {
                portBytes = nil
            } else if rest.first == UInt8(ascii: ":") {
                portBytes = rest.dropFirst()
            } else {
                throw failure("unexpected characters after the IPv6 address")
            }
            isIPv6 = true
        } else if let portColon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[..<portColon]
            portBytes = authority[(portColon + 1)...]
        } else {
            hostBytes = authority
            portBytes = nil
        }

        guard !hostBytes.isEmpty else {
            throw failure("it has no host")
        }
        let host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        if isIPv6 {
            guard Self.isIPv6Address(host) else {
                throw failure("\(host.debugDescription) is not a valid IPv6 address")
            }
        } else {
            for byte in hostBytes where !Self.isRegisteredNameByte(byte) {
                if byte >= 0x80 {
                    throw failure("its host is not ASCII; use the punycode (xn--) form of the name")
                }
                throw failure(
                    "its host contains the invalid character \(String(UnicodeScalar(byte)).debugDescription)"
                )
            }
        }

        var port: Int?
        if let portBytes, !portBytes.isEmpty {
            // An empty port ("host:") means the default port (RFC 3986 3.2.3).
            let text = String(decoding: portBytes, as: UTF8.self)
            guard portBytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw failure("its port \(text.debugDescription) is not a number")
            }
            guard let value = Int(text), (1...65535).contains(value) else {
                throw failure("its port \(text) is out of range (1-65535)")
            }
            port = value
        }

        let rest = bytes[authorityEnd...]
        let hash = rest.firstIndex(of: UInt8(ascii: "#"))
        let beforeFragment = rest[..<(hash ?? rest.endIndex)]
        let questionMark = beforeFragment.firstIndex(of: UInt8(ascii: "?"))

        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = PercentEncoding.encodingNonASCII(beforeFragment[..<(questionMark ?? beforeFragment.endIndex)])
        self.query = questionMark.map { PercentEncoding.encodingNonASCII(beforeFragment[($0 + 1)...]) }
        self.fragment = hash.map { PercentEncoding.encodingNonASCII(rest[($0 + 1)...]) }
    }

    /// The port a connection goes to: ``port``, else 80 for http and 443 for https.
    public var effectivePort: Int {
        self.port ?? self.defaultPort
    }

    /// The scheme's default port: 80 for http, 443 for https.
    public var defaultPort: Int {
        self.scheme == "https" ? 443 : 80
    }

    /// `host[:port]` as it belongs in a `Host` header: an IPv6 host in brackets, the default port omitted.
    public var authority: String {
        let host = Self.bracketed(host: self.host)
        if let port = self.port, port != self.defaultPort {
            return "\(host):\(port)"
        }
        return host
    }

    /// `host` as a URL or a `Host` header writes it: in brackets when it is an IPv6 address (it has a `:`).
    public static func bracketed(host: String) -> String {
        host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
    }

    /// The origin-form request target: the path (or `/` when empty) and `?query`; never the fragment.
    public var requestTarget: String {
        let path = self.path.isEmpty ? "/" : self.path
        if let query = self.query {
            return "\(path)?\(query)"
        }
        return path
    }

    /// `scheme://authority/requestTarget`, the fragment omitted.
    public var absoluteString: String {
        "\(self.scheme)://\(self.authority)\(self.requestTarget)"
    }

    /// Same as ``absoluteString``.
    public var description: String {
        self.absoluteString
    }

    /// Whether a byte may appear in an RFC 3986 reg-name (unreserved, `%`, sub-delims).
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        if PercentEncoding.isUnreserved(byte) {
            return true
        }
        switch byte {
        case UInt8(ascii: "%"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    private static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    private static func hex(_ byte: UInt8) -> String {
        String(decoding: [PercentEncoding.hexDigit(byte >> 4), PercentEncoding.hexDigit(byte & 0x0F)], as: UTF8.self)
    }
}
