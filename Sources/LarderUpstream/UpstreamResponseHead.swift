/// The status line and header fields of an upstream response.
public struct UpstreamResponseHead: Sendable {
    /// The status code, e.g. 200.
    public var status: Int

    /// The reason phrase; empty for HTTP/2 and later, which have none.
    public var reason: String

    /// Header fields in the order received, names as sent by the origin.
    public var headers: [(name: String, value: String)]

    /// The HTTP version of the response: `"1.0"`, `"1.1"`, `"2"` or `"3"`.
    public var httpVersion: String

    /// Creates a response head.
    public init(status: Int, reason: String, headers: [(name: String, value: String)], httpVersion: String) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.httpVersion = httpVersion
    }

    /// The values of every header field called `name` (compared case-insensitively), in order.
    public func values(forHeader name: String) -> [String] {
        self.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The value of the first header field called `name` (compared case-insensitively).
    public func firstValue(forHeader name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
