import LarderHTTP

/// Pages another module serves at the proxy's own address (LarderDevOffline: /dev/offline, its
/// JSON twins and controls, and /metrics). The proxy's `OwnPages` hands over every request whose path
/// ``handles(path:)`` claims, as plain values, and writes back the response it returns; the
/// server makes the responder once it listens (`ProxyServer`'s `pages`).
public protocol OwnPageResponder: Sendable {
    /// Whether the page at `path` is one of these.
    func handles(path: String) -> Bool
    /// The whole response to `request`.
    func respond(to request: OwnPageRequest) async -> OwnPageResponse
}

/// A request to one of Larder's own pages.
public struct OwnPageRequest: Sendable {
    /// The method as the client sent it, e.g. `GET`.
    public var method: String
    /// The request target as sent (origin-form or absolute-form).
    public var target: String
    /// The target's path, e.g. `/dev/offline`.
    public var path: String
    /// The target's query, without `?` and fragment; nil when there is none.
    public var query: String?
    /// The header fields, in order.
    public var headers: [HeaderField]
    /// The body, read whole.
    public var body: [UInt8]
    /// Where the connection comes from: this machine (loopback spellings of Larder's origin are
    /// its own only then: `SameOriginCheck`) or another, by address (whose queued writes it may
    /// manage: ``AnswerOwner/mayManageQueuedWrite(ownedBy:client:request:)``).
    public var client: AnswerOwner.Client

    /// Whether the connection comes from this machine.
    public var clientIsLoopback: Bool {
        self.client == .local
    }

    /// Creates a request.
    public init(
        method: String, target: String, path: String, query: String?, headers: [HeaderField], body: [UInt8], client: AnswerOwner.Client
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.client = client
    }
}

/// A complete response from one of Larder's own pages; the proxy frames it (and leaves the body
/// out for a HEAD).
public struct OwnPageResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The header fields, in order.
    public var headers: [HeaderField]
    /// The body.
    public var body: String

    /// Creates a response.
    public init(status: Int, headers: [HeaderField], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
