import LarderHTTP
import LarderTestSupport
import NIOCore
import Synchronization
import Testing

@testable import LarderUpstream

/// How responses are framed and delivered, whatever the client.
@Suite("Upstream contract: response framing")
struct UpstreamContractMessageTests {
    @Test(
        "interim heads reach `interim` where the client can see them; the final head and body arrive either way",
        arguments: UpstreamUnderTest.allCases)
    func interimHeads(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/hints",
            .text("page", faults: [.interim([(status: 103, headers: [(name: "Link", value: "</a.css>; rel=preload")])])]))
        let upstream = try client.make()
        defer { upstream.close() }
        let seen = Mutex<[UpstreamResponseHead]>([])
        var request = UpstreamRequest(url: origin.url("/hints"))
        request.interim = { head in seen.withLock { $0.append(head) } }

        let response = try await upstream.execute(request)

        #expect(response.head.status == 200)
        #expect(response.head.headers.first(name: "Link") == nil)
        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "page")
        let interim = seen.withLock { $0 }
        if client.reportsInterimHeads {
            #expect(interim.map(\.status) == [103])
            #expect(interim.first?.headers.first(name: "Link") == "</a.css>; rel=preload")
        } else {
            #expect(interim.isEmpty)
        }
        try await origin.stop()
    }

    @Test("204 and 304 end at the head, and the connection serves the next request", arguments: UpstreamUnderTest.allCases, [204, 304])
    func bodilessStatuses(_ client: UpstreamUnderTest, status: Int) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/empty", TestResponse(status: status, headers: [(name: "ETag", value: "\"v1\"")]))
        origin.setRoute("/next", .text("next"))
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/empty")))

        #expect(response.head.status == status)
        #expect(response.head.headers.first(name: "ETag") == "\"v1\"")
        #expect(try await response.body.collectBytes().isEmpty)
        let next = try await withTimeLimit(.seconds(10)) {
            try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
        }
        #expect(next == Array("next".utf8))
        try await origin.stop()
    }

    @Test("a body without framing ends when the origin closes the connection, complete", arguments: UpstreamUnderTest.allCases)
    func closeDelimitedBody(_ client: UpstreamUnderTest) async throws {
        let body = GeneratedBody.bytes(0..<200_000)
        let origin = try await RawOrigin.start { outbound in
            try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"))
            for start in stride(from: 0, to: body.count, by: 50_000) {
                try await outbound.write(ByteBuffer(bytes: Array(body[start..<min(start + 50_000, body.count)])))
            }
        }
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/close")))

        #expect(response.head.status == 200)
        #expect(Bytes(try await response.body.collectBytes()) == Bytes(body))
        try await origin.stop()
    }

    @Test("a head of 60 KiB of fields arrives whole", arguments: UpstreamUnderTest.allCases)
    func hugeHead(_ client: UpstreamUnderTest) async throws {
        let value = String(repeating: "v", count: 600)
        let fields = (0..<100).map { "X-Field-\($0): \(value)\r\n" }.joined()
        let origin = try await RawOrigin.start { outbound in
            try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\(fields)Content-Length: 2\r\n\r\nok"))
        }
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/big-head")))

        #expect(response.head.headers.filter { $0.name.hasPrefix("X-Field-") }.count == 100)
        #expect(response.head.headers.first(name: "X-Field-99") == value)
        #expect(try await response.body.collectBytes() == Array("ok".utf8))
        try await origin.stop()
    }

    @Test(
        "a consumer that stops reading stops the transfer: the origin can send only what buffers hold",
        arguments: UpstreamUnderTest.allCases)
    func slowReaderBoundsBuffering(_ client: UpstreamUnderTest) async throws {
        let length = 128 << 20
        let sent = Mutex(0)
        let origin = try await RawOrigin.start { outbound in
            try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n"))
            var offset = 0
            while offset < length {
                let end = min(offset + 65_536, length)
                try await outbound.write(ByteBuffer(bytes: GeneratedBody.bytes(Int64(offset)..<Int64(end))))
                sent.withLock { $0 = end }
                offset = end
            }
        }
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/huge")))
        var iterator = response.body.makeAsyncIterator()
        var received = Int64(try await iterator.next()?.readableBytes ?? 0)
        try await Task.sleep(for: .seconds(2))
        let sentWhileStalled = sent.withLock { $0 }
        while let chunk = try await iterator.next() {
            received += Int64(chunk.readableBytes)
        }

        // Socket buffers on both ends (a few MiB on loopback) and the client's few chunks; without
        // back-pressure the whole 128 MiB would have gone in the stall.
        #expect(sentWhileStalled < 32 << 20, "\(sentWhileStalled) bytes sent while the consumer stalled")
        #expect(received == Int64(length))
        try await origin.stop()
    }
}
