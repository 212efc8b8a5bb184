/// An upstream response: its head, available at once, and its body, streamed as it arrives.
public struct UpstreamResponse: Sendable {
    /// The status line and headers.
    public let head: UpstreamResponseHead

    /// The body; iterate it once. Dropping it without reading to the end cancels the transfer.
    public let body: UpstreamBody

    /// Creates a response.
    public init(head: UpstreamResponseHead, body: UpstreamBody) {
        self.head = head
        self.body = body
    }
}
