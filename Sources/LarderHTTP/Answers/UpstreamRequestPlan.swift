/// The header fields of the requests Larder sends upstream for a client's (docs/SERVING.md, "How
/// a request goes upstream"): what the client sent end to end, with Larder's own coding, range
/// and validators where the cache needs them.
public enum UpstreamRequestPlan {
    /// What an upstream GET or HEAD asks of ranges.
    public enum Range: Sendable, Equatable {
        /// No `Range`: the whole body, so that it can be stored.
        case none
        /// The client's own `Range` and `If-Range`: nothing complete is stored to cut it from.
        case client
        /// `Range: value` asks for the bytes that complete the stored partial response, with its
        /// strong entity tag as `If-Range` when it has one.
        case completing(value: String, ifRange: String?)
    }

    /// The client's fields as they go upstream with any request: hop-by-hop fields (RFC 9110
    /// section 7.6.1), `Host`, `Content-Length` and `Expect` left out (the upstream client frames
    /// its own request), and Larder's `Via` entry after the client's (``ViaField``).
    public static func forwardedFields(_ client: [HeaderField]) -> [HeaderField] {
        var fields: [HeaderField] = []
        fields.reserveCapacity(client.count + 1)
        var via: [String] = []
        for field in HopByHopHeaders.removing(from: client) {
            switch field.name.lowercased() {
            case "host", "content-length", "expect":
                continue
            case "via":
                via.append(field.value)
            default:
                fields.append(field)
            }
        }
        fields.append(ViaField.field(after: via))
        return fields
    }

    /// The fields of a GET or HEAD sent for a client's request: ``forwardedFields(_:)``, then
    /// - for the whole body (`range` `.none`): no `Range` or `If-Range`, and Larder's own
    ///   `Accept-Encoding`, so that one stored representation serves every client
    ///   (``EncodingNegotiation``);
    /// - for the client's range: its `Range`, `If-Range` and `Accept-Encoding` as they are (a
    ///   range of a coding cannot be decoded alone);
    /// - to complete a stored part: that range and `If-Range`, and `Accept-Encoding: identity`
    ///   (stored parts are never coded);
    /// - when revalidating a stored copy (`validators`): its `ETag` and `Last-Modified` as
    ///   `If-None-Match` and `If-Modified-Since` in place of the client's own, so that a 304
    ///   always speaks of the stored copy (RFC 9111 section 4.3.1; the client's conditional is
    ///   answered from it afterwards).
    public static func fields(client: [HeaderField], range: Range, validators: (etag: String?, lastModified: String?)?) -> [HeaderField] {
        var fields = Self.forwardedFields(client)
        switch range {
        case .none:
            fields.removeAll { $0.hasName("range") || $0.hasName("if-range") || $0.hasName("accept-encoding") }
            fields.append(HeaderField(name: "Accept-Encoding", value: EncodingNegotiation.upstreamAcceptEncoding))
        case .client:
            break
        case .completing(let value, let ifRange):
            fields.removeAll { $0.hasName("range") || $0.hasName("if-range") || $0.hasName("accept-encoding") }
            fields.append(HeaderField(name: "Accept-Encoding", value: "identity"))
            fields.append(HeaderField(name: "Range", value: value))
            if let ifRange { fields.append(HeaderField(name: "If-Range", value: ifRange)) }
        }
        if let validators {
            fields.removeAll { $0.hasName("if-none-match") || $0.hasName("if-modified-since") }
            if let etag = validators.etag { fields.append(HeaderField(name: "If-None-Match", value: etag)) }
            if let lastModified = validators.lastModified { fields.append(HeaderField(name: "If-Modified-Since", value: lastModified)) }
        }
        return fields
    }
}
