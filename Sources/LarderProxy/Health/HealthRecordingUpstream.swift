import LarderHTTP
import LarderUpstream

/// An `Upstream` that records what each exchange says about its origin's health in an
/// ``UpstreamHealthRegistry``, by ``UpstreamHealthRule``: the one place the proxy's fetches,
/// forwarded and queued writes, replays and declared requests are counted for back-off.
struct HealthRecordingUpstream: Upstream {
    let base: any Upstream
    let health: UpstreamHealthRegistry
    let rule: UpstreamHealthRule

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let response: UpstreamResponse
        do {
            response = try await self.base.execute(request)
        } catch {
            self.record(.failed(error), request)
            throw error
        }
        self.record(.answered(status: response.head.status), request)
        return response
    }

    func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead {
        let head: UpstreamResponseHead
        do {
            head = try await self.base.receive(request, into: sink)
        } catch {
            self.record(.failed(error), request)
            throw error
        }
        self.record(.answered(status: head.status), request)
        return head
    }

    private func record(_ outcome: UpstreamHealthRule.Outcome, _ request: UpstreamRequest) {
        // A URL that does not parse reached no origin (nor would the client send it).
        guard let origin = (try? HTTPURL(parsing: request.url))?.origin else { return }
        self.health.record(outcome, origin: origin, rule: self.rule)
    }
}
