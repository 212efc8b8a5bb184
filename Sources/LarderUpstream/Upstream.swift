/// How the proxy and the precache runner reach upstream origins.
///
/// ``CurlUpstream`` is the real implementation; tests inject faults by implementing this protocol,
/// and another HTTP client (URLSession on Apple platforms, docs/EMBEDDING.md) may too. What the
/// callers rely on: the head is returned as it arrives and the body streams after it; redirects
/// are answers, never followed; bodies come as the origin encoded them (or the head says
/// otherwise); the client sets `Host` from the URL and frames the request body itself; nothing is
/// cached or given cookies on the way; TLS is always verified; failures are ``UpstreamError``s of
/// the kind that fits, since the kinds decide fallbacks and back-off.
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
