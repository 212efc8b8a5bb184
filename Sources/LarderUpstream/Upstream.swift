/// How the proxy and the precache runner reach upstream origins.
///
/// ``CurlUpstream`` is the real implementation; tests inject faults by implementing this protocol.
public protocol Upstream: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    ///
    /// The body streams through ``UpstreamResponse/body`` afterwards. Any HTTP status, including 3xx, 4xx
    /// and 5xx, is a response; only transport failures throw.
    ///
    /// - Throws: ``UpstreamError`` when the transfer fails before the head arrives, or `CancellationError`
    ///   when the calling task is cancelled while waiting for the head.
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse
}
