import Crypto

/// What an origin granted a page origin in CORS, learned from its answers, and how Larder gives
/// that grant on the answers it makes in the origin's place (docs/SERVING.md, "CORS when the
/// origin cannot answer").
///
/// A page on `https://www.example` that calls `https://api.example` cannot read an answer unless
/// it carries `Access-Control-Allow-Origin` for it, and a request that is not "simple" is sent
/// only after a preflight `OPTIONS` the origin allowed. When the origin cannot answer, Larder's
/// answers (stored copies, a queued write's `202`, its error pages, a preflight) carry the grant
/// the origin last gave that page origin: never `*` with credentials, never a grant the origin
/// did not give, never one learned for another page origin.
public struct CORSGrant: Hashable, Sendable {
    /// `*`, or the page origin itself.
    public var allowOrigin: String
    /// Whether the origin allowed credentials (only ever with an exact origin).
    public var allowsCredentials: Bool
    /// The response fields the origin exposed, lower-case.
    public var exposedHeaders: [String]

    /// The fields Larder adds to what the page may read, besides the origin's.
    public static let larderExposedHeaders = ["cache-status", "larder-offline", "larder-queued"]

    /// A grant as stored.
    public init(allowOrigin: String, allowsCredentials: Bool, exposedHeaders: [String]) {
        self.allowOrigin = allowOrigin
        self.allowsCredentials = allowsCredentials && allowOrigin != "*"
        self.exposedHeaders = exposedHeaders
    }

    /// What `response` grants `pageOrigin` (a canonical origin), nil when it grants it nothing:
    /// no `Access-Control-Allow-Origin`, one naming another origin, or more than one.
    public init?(response: some HeaderFields, pageOrigin: String) {
        let values = response["access-control-allow-origin"]
        guard values.count == 1 else { return nil }
        let value = values[0].trimmingWhitespace()
        if value == "*" {
            self.allowOrigin = "*"
        } else if HTTPURL.canonicalOrigin(value) == pageOrigin {
            self.allowOrigin = pageOrigin
        } else {
            return nil
        }
        self.allowsCredentials =
            self.allowOrigin != "*"
            && response["access-control-allow-credentials"].first?.trimmingWhitespace().lowercased() == "true"
        self.exposedHeaders = Self.names(response["access-control-expose-headers"])
    }

    /// The page origin a request names in `Origin` (canonical), nil for none or `null`.
    public static func pageOrigin(of request: some HeaderFields) -> String? {
        request.first(name: "origin").flatMap { HTTPURL.canonicalOrigin($0.trimmingWhitespace()) }
    }

    /// `headers` with their CORS fields replaced by `grant` (removed when nil), for an answer
    /// Larder gives in the origin's place to a request from a page origin: a stored copy may
    /// carry another page origin's grant, and a copy stored from Larder's own request none.
    public static func answering(_ headers: [HeaderField], with grant: CORSGrant?) -> [HeaderField] {
        var headers = headers
        headers.remove(name: "access-control-allow-origin")
        headers.remove(name: "access-control-allow-credentials")
        headers.remove(name: "access-control-expose-headers")
        headers.append(contentsOf: grant?.fields ?? [])
        return headers
    }

    /// The fields that give this grant on an answer: the origin, credentials where the origin
    /// allowed them, what may be read (Larder's own fields added), `Vary: Origin`.
    public var fields: [HeaderField] {
        var fields = [HeaderField(name: "Access-Control-Allow-Origin", value: self.allowOrigin)]
        if self.allowsCredentials {
            fields.append(HeaderField(name: "Access-Control-Allow-Credentials", value: "true"))
        }
        var exposed = self.exposedHeaders
        for name in Self.larderExposedHeaders where !exposed.contains(name) {
            exposed.append(name)
        }
        fields.append(HeaderField(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", ")))
        fields.append(HeaderField(name: "Vary", value: "Origin"))
        return fields
    }

    /// Lower-case, trimmed members of comma-separated field values.
    static func names(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
    }
}

/// A CORS preflight: an `OPTIONS` with `Origin` and `Access-Control-Request-Method`
/// (docs/SERVING.md, "CORS when the origin cannot answer").
public struct CORSPreflight: Hashable, Sendable {
    /// The page origin asking (canonical).
    public var pageOrigin: String
    /// The method the page wants to send, as sent.
    public var method: String
    /// The request fields it wants to send, lower-case, sorted, without repeats.
    public var headers: [String]

    /// The preflight `request` with `method` is, nil when it is none (or names no valid origin).
    public init?(method: String, request: some HeaderFields) {
        guard method == "OPTIONS", let pageOrigin = CORSGrant.pageOrigin(of: request),
            let requested = request.first(name: "access-control-request-method")?.trimmingWhitespace(), !requested.isEmpty
        else { return nil }
        self.pageOrigin = pageOrigin
        self.method = requested
        self.headers = Array(Set(CORSGrant.names(request["access-control-request-headers"]))).sorted()
    }

    /// What its answer is stored under, beside the URL: the page origin, method and fields it
    /// asks about (``CacheKey/keyed(method:bodyKey:digest:)`` with method `OPTIONS`).
    public var digest: String {
        let text = [self.pageOrigin, self.method, self.headers.joined(separator: ",")].joined(separator: "\n")
        return LowercaseHex.string(Array(SHA256.hash(data: Array(text.utf8))))
    }

    /// The answer Larder gives in the origin's place from `grant`, for a request a declared
    /// request, a queue route or a keyed route covers: it allows what the page asks (the origin
    /// is not reached, so nothing more reaches it), with the origin's own grant of the page.
    public func answer(from grant: CORSGrant) -> [HeaderField] {
        var fields = [
            HeaderField(name: "Access-Control-Allow-Origin", value: grant.allowOrigin),
            HeaderField(name: "Access-Control-Allow-Methods", value: self.method),
        ]
        if grant.allowsCredentials {
            fields.append(HeaderField(name: "Access-Control-Allow-Credentials", value: "true"))
        }
        if !self.headers.isEmpty {
            fields.append(HeaderField(name: "Access-Control-Allow-Headers", value: self.headers.joined(separator: ", ")))
        }
        fields.append(HeaderField(name: "Vary", value: "Origin"))
        fields.append(HeaderField(name: "Cache-Control", value: "no-store"))
        return fields
    }
}
