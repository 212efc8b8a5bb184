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
    public var description: String {
        var value = "larder"
        if self.hit { value += "; hit" }
        if let forward = self.forward { value += "; fwd=\(forward.rawValue)" }
        if let status = self.forwardStatus { value += "; fwd-status=\(status)" }
        if self.stored { value += "; stored" }
        if let ttl = self.ttl { value += "; ttl=\(ttl)" }
        if let detail = self.detail { value += "; detail=\(Self.item(detail))" }
        return value
    }

    /// `text` as a Structured Field item (RFC 8941): a token when it is one, else a string
    /// (quoted, `"` and `\\` escaped, anything outside printable ASCII as `?`).
    private static func item(_ text: String) -> String {
        let isToken =
            text.unicodeScalars.first.map { $0.properties.isAlphabetic && $0.isASCII || $0 == "*" } == true
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (Self.tokenCharacters.contains($0) || $0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
        guard !isToken else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": quoted += "\\\(scalar)"
            case " "..."~": quoted.unicodeScalars.append(scalar)
            default: quoted += "?"
            }
        }
        return quoted + "\""
    }

    /// What a token may hold beside letters and digits (RFC 8941 section 3.3.4: `tchar`, `:`, `/`).
    private static let tokenCharacters: Set<Unicode.Scalar> = [
        "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~", ":", "/",
    ]
}
