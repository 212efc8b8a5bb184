/// Where ``Upstream/receive(_:into:)`` puts a response body: each chunk in order, on the thread
/// that receives it (libcurl's, for `CurlUpstream`), so that a caller wanting the body whole in
/// a file (a precache download) gets one finished body rather than a stream of chunks handed to
/// another thread one at a time.
public protocol UpstreamBodySink: AnyObject, Sendable {
    /// Takes the next chunk of the body. Runs on the receiving thread, so it must not wait for
    /// anything slower than a local file write. Throwing aborts the transfer, and
    /// ``Upstream/receive(_:into:)`` throws the same error.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}
