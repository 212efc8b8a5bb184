import LarderUpstream

/// An `Upstream` that counts failures for `/metrics` (`larder_upstream_errors_total`): requests
/// that fail before a response head (DNS, refused or reset connections, TLS, timeouts) and answers
/// with a 5xx status. It wraps the proxy's and the precache jobs' upstream alike.
struct FailureCountingUpstream: Upstream {
    let base: any Upstream
    let metrics: ProxyMetrics

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let response: UpstreamResponse
        do {
            response = try await self.base.execute(request)
        } catch let cancellation as CancellationError {
            throw cancellation
        } catch {
            self.metrics.recordTransportFailure()
            throw error
        }
        if response.head.status >= 500 {
            self.metrics.recordServerError()
        }
        return response
    }

    func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead {
        let head: UpstreamResponseHead
        do {
            head = try await self.base.receive(request, into: sink)
        } catch let cancellation as CancellationError {
            throw cancellation
        } catch let failure as UpstreamError {
            self.metrics.recordTransportFailure()
            throw failure
        }
        if head.status >= 500 {
            self.metrics.recordServerError()
        }
        return head
    }
}
