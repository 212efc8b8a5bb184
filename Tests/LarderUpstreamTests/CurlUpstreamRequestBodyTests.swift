// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderHTTP
    import LarderTestSupport
    import NIOConcurrencyHelpers
    import NIOCore
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("CurlUpstream request bodies")
    struct CurlUpstreamRequestBodyTests {
        /// The request bodies that survive a dead kept-alive connection: a fixed one, and a streamed one
        /// within the replay limit.
        enum ResendableBody: String, CaseIterable, Sendable {
            case fixed
            case smallStream

            var body: UpstreamRequestBody {
                switch self {
                case .fixed: .bytes(ByteBuffer(string: "payload"))
                case .smallStream: .stream(chunkStream([Array("pay".utf8), Array("load".utf8)]), length: 7)
                }
            }
        }

        @Test("a body is sent again when a reused connection turns out dead", arguments: ResendableBody.allCases)
        func bodyResentOnDeadConnection(_ kind: ResendableBody) async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/warm-up", .text("warm"))
            let attempts = NIOLockedValueBox(0)
            origin.setRoute(
                "/flaky",
                .dynamic { _ in
                    let attempt = attempts.withLockedValue { count in
                        count += 1
                        return count
                    }
                    // The first attempt arrives on the kept-alive connection, which then dies without an answer.
                    return attempt == 1 ? TestResponse(faults: [.closeWithoutResponse]) : .text("stored")
                }
            )
            let upstream = try CurlUpstream(configuration: .init(maxConnectionsPerHost: 1))
            defer { upstream.shutdown() }

            _ = try await upstream.execute(UpstreamRequest(url: origin.url("/warm-up"))).body.collectBytes()
            let response = try await upstream.execute(UpstreamRequest(method: "POST", url: origin.url("/flaky"), body: kind.body))

            #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "stored")
            #expect(origin.requests("/flaky").map { String(decoding: $0.body, as: UTF8.self) } == ["payload", "payload"])
            try await origin.stop()
        }

        @Test("a streamed body larger than the replay limit is not resent when a reused connection turns out dead")
        func largeStreamedBodyNotResent() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/warm-up", .text("warm"))
            origin.setRoute("/hangup", TestResponse(faults: [.closeWithoutResponse]))
            let upstream = try CurlUpstream(configuration: .init(maxConnectionsPerHost: 1))
            defer { upstream.shutdown() }
            let chunks = Array(repeating: [UInt8](repeating: 0x61, count: 16 * 1024), count: 12)

            _ = try await upstream.execute(UpstreamRequest(url: origin.url("/warm-up"))).body.collectBytes()
            let error = await upstreamError {
                _ = try await upstream.execute(
                    UpstreamRequest(
                        method: "POST", url: origin.url("/hangup"),
                        body: .stream(chunkStream(chunks), length: Int64(12 * 16 * 1024)))
                )
            }

            #expect(error?.kind == .connectionReset)
            #expect(error?.isConnectFailure == false)
            #expect(origin.requestCount("/hangup") == 1)
            try await origin.stop()
        }
    }
#endif
