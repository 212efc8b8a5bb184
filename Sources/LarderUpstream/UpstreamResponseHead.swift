import LarderHTTP

/// The status line and header fields of an upstream response.
public struct UpstreamResponseHead: Sendable {
    /// The status code, e.g. 200.
    public var status: Int

    /// The reason phrase; empty for HTTP/2 and later, which have none.
    public var reason: String

    /// Header fields in the order received, names as sent by the origin.
    public var headers: [HeaderField]

    /// The HTTP version of the response: `"1.0"`, `"1.1"`, `"2"` or `"3"`.
    public var httpVersion: String

    /// Creates a response head.
    public init(status: Int, reason: String, headers: [HeaderField], httpVersion: String) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.httpVersion = httpVersion
    }
}
