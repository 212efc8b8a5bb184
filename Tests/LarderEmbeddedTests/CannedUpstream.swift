import LarderHTTP
import LarderUpstream
import NIOCore

/// An `Upstream` that answers every request itself with `canned URL`, cacheable for a minute: what
/// any other HTTP client (URLSession on Apple platforms) plugged in behind the protocol would be.
struct CannedUpstream: Upstream {
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let body = ByteBuffer(string: "canned \(request.url)")
        return UpstreamResponse(
            head: UpstreamResponseHead(
                status: 200,
                reason: "OK",
                headers: [
                    HeaderField(name: "Content-Type", value: "text/plain"),
                    HeaderField(name: "Content-Length", value: "\(body.readableBytes)"),
                    HeaderField(name: "Cache-Control", value: "max-age=60"),
                ],
                httpVersion: "1.1"
            ),
            body: .bytes(body)
        )
    }
}
