import LarderHTTP

/// One HTTP request to an upstream origin.
public struct UpstreamRequest: Sendable {
    /// The request method, e.g. `GET`, `HEAD`, `POST`.
    public var method: String

    /// The absolute `http` or `https` URL to fetch.
    public var url: String

    /// Header fields sent as given, in order.
    ///
    /// Framing headers (`Content-Length`, `Transfer-Encoding`) and `Expect` are not taken from here: the
    /// client derives framing from ``body`` and never sends `Expect: 100-continue`.
    public var headers: [HeaderField]

    /// The request body; `nil` sends none.
    public var body: UpstreamRequestBody?

    /// How long establishing the connection (TCP and TLS) may take.
    public var connectTimeout: Duration = .seconds(10)

    /// How long the transfer may go without moving a byte before it fails with ``UpstreamError/Kind/timeout``.
    ///
    /// Time the response body spends paused because its consumer is not reading does not count. libcurl averages
    /// the transfer speed over the last 5 seconds, so a stall after bytes have flowed is noticed up to 5 s later.
    public var idleTimeout: Duration = .seconds(30)

    /// How long the whole transfer, body included, may take; `nil` is no limit.
    public var totalTimeout: Duration? = nil

    /// The addresses a client on another machine may make Larder reach (``UpstreamReach``), nil
    /// for a request of the box's own user: a connection to any other address of the box's own
    /// (a name resolving to `127.0.0.1` included) fails with ``UpstreamError/Kind/forbiddenAddress``
    /// before anything is sent on it. Through a parent proxy the connection is the parent's, and
    /// only the request's host name is judged (by the caller).
    public var reach: UpstreamReach? = nil

    /// Called with each interim head other than `100 Continue` (`102`, `103 Early Hints`) as it
    /// arrives, before the final head, on the transfer's thread: it must not block.
    public var interim: (@Sendable (UpstreamResponseHead) -> Void)? = nil

    /// Creates a request.
    public init(
        method: String = "GET",
        url: String,
        headers: [HeaderField] = [],
        body: UpstreamRequestBody? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
