import Crypto

/// Whose a stored answer is (docs/SERVING.md, "Private answers").
///
/// A response to a request that carries credentials (`Authorization`, `Cookie`), or one the
/// origin marks `Cache-Control: private`, is personal: it is stored with the owner of the request
/// that got it, and answers only requests from the same owner that are not reads by a page of
/// another site, online or offline. Any other response is shared. The owner is a digest, so no
/// credential is stored in clear:
/// - every client on Larder's own machine is its one user (a loopback setup has no other), so
///   a fresh browser profile, or a request without cookies, still finds the user's pages;
/// - a client on another machine (LAN mode) is told apart by its address and by the exact
///   `Authorization` and `Cookie` values, so neither another machine nor another login on the
///   same machine is ever answered with its pages.
public struct AnswerOwner: Hashable, Sendable {
    /// Where a client connects from.
    public enum Client: Hashable, Sendable {
        /// Larder's own machine (a loopback address).
        case local
        /// Another machine, by its address as text.
        case remote(address: String)
    }

    /// The name the owner is recorded under among a stored response's varied request values.
    /// No header field can have it (a colon is not a token character), so an origin's `Vary`
    /// cannot name it.
    public static let recordedName = ":owner"

    /// A SHA-256 digest of who the client is (and, on another machine, the credentials it sent),
    /// in lower-case hex.
    public let digest: String
    /// Whether the request is a read by a page of another site (``isCrossSite(_:url:)``), which
    /// a personal answer never answers: it is what a hostile page sends to read the user's data.
    public let isCrossSite: Bool

    /// The owner of `request` for `url` from `client`.
    public init(client: Client, request: some HeaderFields, url: HTTPURL) {
        self.digest = Self.digest(client: client, request: request)
        self.isCrossSite = Self.isCrossSite(request, url: url)
    }

    /// The owner digest of `request` from `client` (``digest``).
    public static func digest(client: Client, request: some HeaderFields) -> String {
        switch client {
        case .local:
            return Self.localDigest
        case .remote(let address):
            var identity = "remote:" + address
            let authorization = request["authorization"].joined(separator: ",")
            let cookie = request["cookie"].joined(separator: "; ")
            if !authorization.isEmpty { identity += "\nauthorization:" + authorization }
            if !cookie.isEmpty { identity += "\ncookie:" + cookie }
            return Self.digest(of: identity)
        }
    }

    /// Whether `request` from `client` may drop or retry a queued write of the owner
    /// `writeOwner` (nil: a write queued before owners were recorded), docs/SERVING.md, "Queued
    /// writes": Larder's own machine may (its user runs the box), another machine only when it
    /// is that owner, so one pupil cannot drop or resend another's save.
    public static func mayManageQueuedWrite(ownedBy writeOwner: String?, client: Client, request: some HeaderFields) -> Bool {
        client == .local || writeOwner == Self.digest(client: client, request: request)
    }

    /// Whether `owner` (a recorded ``digest``) is a client on another machine: the box's own user
    /// is the one local digest; nil (recorded before owners were) counts as the box's own.
    public static func isRemote(_ owner: String?) -> Bool {
        owner.map { $0 != Self.localDigest } ?? false
    }

    /// The one user of Larder's own machine, hashed once rather than per request.
    private static let localDigest = Self.digest(of: "local")

    private static func digest(of identity: String) -> String {
        LowercaseHex.string(Array(SHA256.hash(data: Array(identity.utf8))))
    }

    /// Whether `request` comes from a page of another site than `url`'s: as the browser says in
    /// `Sec-Fetch-Site`, else (a browser that does not send it) when its `Origin` is not `url`'s
    /// own (`null` included). A request with neither (a navigation in an older browser, curl, an
    /// app) is not.
    public static func isCrossSite(_ request: some HeaderFields, url: HTTPURL) -> Bool {
        if let site = request.first(name: "sec-fetch-site") {
            return site.trimmingWhitespace().lowercased() == "cross-site"
        }
        if let origin = request.first(name: "origin") {
            return HTTPURL.canonicalOrigin(origin.trimmingWhitespace()) != url.origin
        }
        return false
    }

    /// Whether the answer `response` to `request` belongs to the one who asked: the request
    /// carried credentials, or the origin marked the answer `private` (RFC 9111 section 5.2.2.7).
    /// A qualified `private="Set-Cookie"` counts too: Larder stores whole responses.
    public static func isPersonal(request: some HeaderFields, response: some HeaderFields) -> Bool {
        request.contains(name: "authorization") || request.contains(name: "cookie")
            || CacheControlDirectives(response["cache-control"]).contains("private")
    }

    /// The field that records this owner beside a personal response's varied request values.
    public var recorded: HeaderField {
        HeaderField(name: Self.recordedName, value: self.digest)
    }

    /// The owner digest recorded among `values`, nil for a shared response.
    public static func recordedDigest(in values: [HeaderField]) -> String? {
        values.first { $0.name == Self.recordedName }?.value
    }
}
