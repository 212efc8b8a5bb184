/// How the proxy and the precache runner reach upstream origins.
///
/// Two clients implement it, `CurlUpstream` (libcurl, in `LarderCurl`) and ``NIOUpstream``
/// (AsyncHTTPClient), and one table of tests holds both to it (docs/EMBEDDING.md, "Two upstream
/// clients, one contract"); tests inject faults by implementing it, and an app's own client
/// (URLSession, say) may too. What the
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

    /// Sends `request`, writes the whole response body into `sink` as it arrives, and returns the
    /// response head once the body is complete (of its declared length).
    ///
    /// `CurlUpstream` calls the sink on its curl thread and resumes the caller once, at the end;
    /// the default implementation reads ``execute(_:)``'s body and writes each chunk.
    ///
    /// - Throws: ``UpstreamError`` when the transfer fails (a body cut short included), the
    ///   sink's own error when it throws, or `CancellationError` when the calling task is cancelled
    ///   first.
    func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead
}

extension Upstream {
    /// Reads ``execute(_:)``'s body into `sink`; see ``Upstream/receive(_:into:)``.
    public func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead {
        let response = try await self.execute(request)
        for try await chunk in response.body {
            try chunk.withUnsafeReadableBytes { try sink.write($0) }
        }
        return response.head
    }
}
