/// How a stored or fetched representation reaches a client whose `Accept-Encoding` may not allow
/// its `Content-Encoding` (Larder asks upstream for gzip itself and stores what comes back).
public enum EncodingNegotiation {
    /// What Larder asks upstream for on cacheable requests, whatever the client sent: gzip is what
    /// it can undo for clients that cannot.
    public static let upstreamAcceptEncoding = "gzip"

    /// What to do with a body coded as `contentEncoding` (the response's field values) for a client
    /// that sent `request`.
    public enum Plan: Equatable {
        /// Send it as it is.
        case asIs
        /// Undo this coding on the way out.
        case decode(ContentCoding)
        /// The client cannot take it and Larder cannot undo it.
        case unusable
    }

    /// The content codings of IANA's HTTP Content Coding Registry (and the `x-` aliases RFC 9110
    /// section 8.4.1 keeps), lower-cased.
    public static let registeredCodings: Set<String> = [
        "gzip", "x-gzip", "deflate", "compress", "x-compress", "br", "zstd", "dcb", "dcz", "aes128gcm", "exi", "pack200-gzip",
    ]

    /// Decides how a body coded as `contentEncoding` reaches a client that sent `request`.
    public static func plan(contentEncoding: [String], request: some HeaderFields) -> Plan {
        let codings = contentEncoding.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }.filter {
            !$0.isEmpty && $0 != "identity"
        }
        guard let coding = codings.first else { return .asIs }
        let accept = AcceptEncoding(request["accept-encoding"])
        // A coding no client can negotiate (not registered) goes as the origin sent it, as the
        // miss relayed it: asking again would bring the same.
        if codings.allSatisfy({ accept.accepts($0) }) || !codings.allSatisfy(Self.registeredCodings.contains) {
            return .asIs
        }
        guard codings.count == 1, let decodable = ContentCoding(contentEncoding: coding) else { return .unusable }
        return .decode(decodable)
    }

    /// The response headers of a decoded representation: no coding, no length (it is not known
    /// before decoding), no ranges (they would address the coded bytes), and a weak validator.
    public static func decodedHeaders(_ headers: inout some HeaderFields) {
        headers.remove(name: "content-encoding")
        headers.remove(name: "content-length")
        headers.remove(name: "content-range")
        headers.remove(name: "accept-ranges")
        if let etag = headers.first(name: "etag"), !etag.hasPrefix("W/") {
            headers.replaceOrAdd(name: "etag", value: "W/" + etag)
        }
        if !headers["vary"].contains(where: { $0.lowercased().contains("accept-encoding") }) {
            headers.add(name: "vary", value: "Accept-Encoding")
        }
    }
}
