/// A `Cache-Status` field value (RFC 9211) for Larder's own cache.
public struct CacheStatus: Sendable, Hashable, CustomStringConvertible {
    /// Why the request went forward (RFC 9211 section 2.2).
    public enum ForwardReason: String, Sendable {
        /// The request was not eligible for the cache (e.g. an unsafe method).
        case method
        /// Nothing was stored under the URI.
        case uriMiss = "uri-miss"
        /// A stored response did not match the request's varied headers.
        case varyMiss = "vary-miss"
        /// A stored response existed but was stale.
        case stale
        /// A stored response existed, but the strategy or the request asked for the network.
        case request
        /// The cache was bypassed (tunnels).
        case bypass
    }

    /// True when the answer came from the cache.
    public var hit: Bool
    /// Set when the request went forward.
    public var forward: ForwardReason?
    /// The upstream status, when there was one.
    public var forwardStatus: Int?
    /// Whether the answer was stored.
    public var stored: Bool
    /// Seconds of freshness left (negative when stale), for hits.
    public var ttl: Int?
    /// Free-form extra detail.
    public var detail: String?

    /// A hit.
    public static func hit(ttl: Int? = nil, detail: String? = nil) -> CacheStatus {
        CacheStatus(hit: true, forward: nil, forwardStatus: nil, stored: false, ttl: ttl, detail: detail)
    }

    /// A forwarded request.
    public static func forward(
        _ reason: ForwardReason,
        status: Int? = nil,
        stored: Bool = false,
        detail: String? = nil
    ) -> CacheStatus {
        CacheStatus(hit: false, forward: reason, forwardStatus: status, stored: stored, ttl: nil, detail: detail)
    }

    /// The field value, e.g. `larder; hit; ttl=12` or `larder; fwd=uri-miss; fwd-status=200; stored`.
    /// Written on every answer, hits included: appends only, and the detail's token check reads
    /// bytes (a check by Unicode properties cost a quarter of a hit's instructions).
    public var description: String {
        var value = "larder"
        value.reserveCapacity(48 + (self.detail?.utf8.count ?? 0))
        if self.hit { value += "; hit" }
        if let forward = self.forward {
            value += "; fwd="
            value += forward.rawValue
        }
        if let status = self.forwardStatus {
            value += "; fwd-status="
            value += String(status)
        }
        if self.stored { value += "; stored" }
        if let ttl = self.ttl {
            value += "; ttl="
            value += String(ttl)
        }
        if let detail = self.detail {
            value += "; detail="
            Self.appendItem(detail, to: &value)
        }
        return value
    }

    /// Appends `text` as a Structured Field item (RFC 8941): a token when it is one, else a string
    /// (quoted, `"` and `\` escaped, anything outside printable ASCII as `?`).
    private static func appendItem(_ text: String, to value: inout String) {
        if Self.isToken(text) {
            value += text
            return
        }
        value += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": value += "\\\(scalar)"
            case " "..."~": value.unicodeScalars.append(scalar)
            default: value += "?"
            }
        }
        value += "\""
    }

    /// Whether `text` is an RFC 8941 token: an ASCII letter or `*`, then letters, digits,
    /// `tchar`s, `:` and `/`.
    static func isToken(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), Self.isLetter(first) || first == UInt8(ascii: "*") else { return false }
        while let byte = bytes.next() {
            guard Self.isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Self.isTokenPunctuation(byte)
            else { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// What a token may hold beside letters and digits (RFC 8941 section 3.3.4: `tchar`, `:`, `/`).
    private static func isTokenPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
