import LarderHTTP
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderUpstream

@Suite("Upstream contract: response body streaming", .serialized)
struct UpstreamContractStreamingTests {
    @Test("a body paused by its consumer longer than the idle timeout is not timed out", arguments: UpstreamUnderTest.allCases)
    func pausedBodyIsNotIdle(_ client: UpstreamUnderTest) async throws {
        let length: Int64 = 32 << 20
        let origin = try await TestOrigin.start()
        origin.setRoute("/big", TestResponse(body: .generated(length: length)))
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(url: origin.url("/big"))
        request.idleTimeout = .seconds(2)

        let response = try await upstream.execute(request)
        var iterator = response.body.makeAsyncIterator()
        var received = Int64(try await iterator.next()?.readableBytes ?? 0)
        // Far more than buffers hold, so the client stops reading all this time: well past the idle timeout.
        try await Task.sleep(for: .seconds(5))
        while let chunk = try await iterator.next() {
            received += Int64(chunk.readableBytes)
        }

        #expect(received == length)
        try await origin.stop()
    }

    @Test("dropping the body early cancels the transfer and frees its connection", arguments: UpstreamUnderTest.allCases)
    func droppingBodyCancels(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/huge", TestResponse(body: .generated(length: 1 << 30)))
        origin.setRoute("/next", .text("next"))
        // One connection per host: the next request only gets through once the dropped transfer is gone.
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }

        do {
            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/huge")))
            var iterator = response.body.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(
                first.map { Array($0.readableBytesView) }
                    == first.map { GeneratedBody.bytes(0..<Int64($0.readableBytes)) })
        }

        let next = try await withTimeLimit(.seconds(5)) {
            try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
        }
        #expect(next == Array("next".utf8))
        try await origin.stop()
    }

    @Test("a response dropped without reading its body cancels the transfer", arguments: UpstreamUnderTest.allCases)
    func droppingUnreadResponseCancels(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/huge", TestResponse(body: .generated(length: 1 << 30)))
        origin.setRoute("/next", .text("next"))
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }

        let status = try await upstream.execute(UpstreamRequest(url: origin.url("/huge"))).head.status

        #expect(status == 200)
        let next = try await withTimeLimit(.seconds(5)) {
            try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
        }
        #expect(next == Array("next".utf8))
        try await origin.stop()
    }
}
