import LarderHTTP
import LarderTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import LarderUpstream

@Suite("Upstream contract: request bodies")
struct UpstreamContractRequestBodyTests {
    private static let chunks: [[UInt8]] = (0..<40).map { index in
        GeneratedBody.bytes(Int64(index * 10_000)..<Int64(index * 10_000 + 10_000))
    }
    private static let allBytes = Self.chunks.flatMap { $0 }

    @Test("a streamed body with a known length arrives exactly, with Content-Length", arguments: UpstreamUnderTest.allCases)
    func streamWithLength(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/upload", TestResponse(status: 201, body: .bytes(Array("stored".utf8))))
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(
            UpstreamRequest(
                method: "POST",
                url: origin.url("/upload"),
                headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
                body: .stream(chunkStream(Self.chunks, delay: .milliseconds(5)), length: Int64(Self.allBytes.count))
            )
        )

        #expect(response.head.status == 201)
        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "stored")
        let recorded = try #require(origin.requests("/upload").first)
        #expect(recorded.method == "POST")
        #expect(Bytes(recorded.body) == Bytes(Self.allBytes))
        #expect(recorded.header("Content-Length") == String(Self.allBytes.count))
        #expect(recorded.header("Transfer-Encoding") == nil)
        #expect(recorded.header("Content-Type") == "application/octet-stream")
        #expect(recorded.header("Expect") == nil)
        try await origin.stop()
    }

    @Test("a streamed body of unknown length arrives exactly, chunked", arguments: UpstreamUnderTest.allCases)
    func streamWithoutLength(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/upload", .text("ok"))
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(
            UpstreamRequest(
                method: "PUT",
                url: origin.url("/upload"),
                body: .stream(chunkStream(Self.chunks, delay: .milliseconds(5)), length: nil)
            )
        )

        #expect(response.head.status == 200)
        _ = try await response.body.collectBytes()
        let recorded = try #require(origin.requests("/upload").first)
        #expect(recorded.method == "PUT")
        #expect(Bytes(recorded.body) == Bytes(Self.allBytes))
        #expect(recorded.header("Transfer-Encoding") == "chunked")
        #expect(recorded.header("Content-Length") == nil)
        try await origin.stop()
    }

    @Test("a fixed body arrives exactly", arguments: UpstreamUnderTest.allCases)
    func fixedBytes(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/form", .text("ok"))
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(
            UpstreamRequest(method: "PATCH", url: origin.url("/form"), body: .bytes(ByteBuffer(string: "a=1&b=2")))
        )
        _ = try await response.body.collectBytes()

        let recorded = try #require(origin.requests("/form").first)
        #expect(recorded.method == "PATCH")
        #expect(recorded.body == Array("a=1&b=2".utf8))
        #expect(recorded.header("Content-Length") == "7")
        try await origin.stop()
    }

    @Test("a large streamed body is sent at upstream's pace and arrives exactly", arguments: UpstreamUnderTest.allCases)
    func largeStream(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/big-upload", .text("ok"))
        let upstream = try client.make()
        defer { upstream.close() }
        let length: Int64 = 8 << 20
        let pieces = stride(from: Int64(0), to: length, by: 100_000).map { start in
            GeneratedBody.bytes(start..<min(start + 100_000, length))
        }

        let response = try await upstream.execute(
            UpstreamRequest(
                method: "POST", url: origin.url("/big-upload"), body: .stream(chunkStream(pieces), length: length))
        )
        _ = try await response.body.collectBytes()

        let recorded = try #require(origin.requests("/big-upload").first)
        #expect(recorded.body.count == Int(length))
        #expect(Bytes(recorded.body) == Bytes(GeneratedBody.bytes(0..<length)))
        try await origin.stop()
    }

    @Test("a streamed body shorter or longer than its declared length fails the request", arguments: UpstreamUnderTest.allCases, [-1, 1])
    func lengthMismatch(_ client: UpstreamUnderTest, difference: Int) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/upload", .text("ok"))
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(
            method: "POST",
            url: origin.url("/upload"),
            body: .stream(chunkStream(Self.chunks), length: Int64(Self.allBytes.count + difference))
        )
        // The mismatch is found as the body ends; the timeout only stops a hang, even on a loaded machine.
        request.totalTimeout = .seconds(60)

        let error = await upstreamError { _ = try await upstream.execute(request) }

        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("declared") == true)
        try await origin.stop()
    }

    @Test("a request body stream that throws fails the request", arguments: UpstreamUnderTest.allCases)
    func throwingStream(_ client: UpstreamUnderTest) async throws {
        struct ProducerFailed: Error {}
        let origin = try await TestOrigin.start()
        origin.setRoute("/upload", .text("ok"))
        let upstream = try client.make()
        defer { upstream.close() }
        let failing = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
            continuation.yield(ByteBuffer(string: "part"))
            continuation.finish(throwing: ProducerFailed())
        }

        let error = await upstreamError {
            _ = try await upstream.execute(
                UpstreamRequest(method: "POST", url: origin.url("/upload"), body: .stream(failing, length: nil))
            )
        }

        #expect(error?.kind == .requestBodyFailed)
        #expect(error?.message.contains("ProducerFailed") == true)
        try await origin.stop()
    }

    /// The request bodies that survive a dead kept-alive connection: a fixed one, and a streamed one
    /// within the replay limit (64 KiB, for both clients).
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

    @Test(
        "a body is sent again when a reused connection turns out dead",
        arguments: UpstreamUnderTest.allCases, ResendableBody.allCases)
    func bodyResentOnDeadConnection(_ client: UpstreamUnderTest, _ kind: ResendableBody) async throws {
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
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }

        _ = try await upstream.execute(UpstreamRequest(url: origin.url("/warm-up"))).body.collectBytes()
        let response = try await upstream.execute(UpstreamRequest(method: "POST", url: origin.url("/flaky"), body: kind.body))

        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "stored")
        #expect(origin.requests("/flaky").map { String(decoding: $0.body, as: UTF8.self) } == ["payload", "payload"])
        try await origin.stop()
    }

    @Test(
        "a streamed body larger than the replay limit is not resent when a reused connection turns out dead",
        arguments: UpstreamUnderTest.allCases)
    func largeStreamedBodyNotResent(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/warm-up", .text("warm"))
        origin.setRoute("/hangup", TestResponse(faults: [.closeWithoutResponse]))
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }
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
