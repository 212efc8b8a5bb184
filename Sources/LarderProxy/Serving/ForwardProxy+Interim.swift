import LarderHTTP
import LarderUpstream
import NIOHTTP1

extension ForwardProxy {
    /// Runs `fetch` with `request`, relaying to the client each interim head upstream sends before
    /// the final one (`102 Processing`, `103 Early Hints`; RFC 9110 section 15.2), in order and
    /// before `fetch` returns. They are never stored, and their fields never join the final
    /// head's (``ResponseHeadParser`` keeps them apart). An HTTP/1.0 client gets none (section 15.2).
    func relayingInterim<T>(
        _ request: UpstreamRequest, client: HTTPRequestHead, writer: ResponseWriter, _ fetch: (UpstreamRequest) async throws -> T
    ) async throws -> T {
        guard client.version.major > 1 || (client.version.major == 1 && client.version.minor >= 1) else {
            return try await fetch(request)
        }
        let (heads, continuation) = AsyncStream.makeStream(of: UpstreamResponseHead.self)
        var request = request
        request.interim = { continuation.yield($0) }
        let relaying = Task {
            for await head in heads {
                let fields = HopByHopHeaders.removing(from: head.headers)
                let status = HTTPResponseStatus(statusCode: head.status, reasonPhrase: head.reason)
                // A client gone meanwhile is found by the final answer's write.
                try? await writer.interim(status, HTTPHeaders(fields))
            }
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await fetch(request))
        } catch {
            result = .failure(error)
        }
        // Heads that came after the wait ended (a network timeout) are not relayed.
        continuation.finish()
        await relaying.value
        return try result.get()
    }
}
