import Foundation
import LarderHTTP
@_spi(Benchmarks) import LarderProxy
@_spi(Benchmarks) import LarderStore
import NIOCore
import NIOHTTP1
import Testing

/// The hit path the micro benchmarks measure (Benchmarks/Benchmarks/LarderMicro) answers as a
/// server does: a first request the ordinary way, then at once with the stored bytes.
@Suite("Benchmark hit path: the immediate answers the micro benchmarks measure")
struct BenchmarkHitPathTests {
    @Test("after an ordinary answer, a plain GET is answered at once, prepared or preparing; a Range GET is not")
    func answersLikeAServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-path-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Trusted for a minute: a loaded machine may take seconds between the steps.
        let store = try Store(directory: directory, lookupTrust: 60)
        defer { try? store.close() }
        let url = "http://site.example/app.js"
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: Array("ONE".utf8))
        let head = StoredResponseHead(
            url: url, status: 200, headers: [HeaderField(name: "Cache-Control", value: "max-age=3600")], requestTime: Date(),
            responseTime: Date())
        _ = try await writer.commit(key: try CacheKey(url: url), head: head, kind: .runtime, expectedLength: 3)

        let path = BenchmarkHitPath(store: store)
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: url, headers: ["Host": "site.example"])
        #expect(path.immediateAnswer(request, allocator: ByteBufferAllocator()) == nil, "nothing is remembered yet")
        #expect(try await path.answerOrdinarily(request) == 200)

        for preparing in [true, false, false] {
            let answer = try #require(path.immediateAnswer(request, allocator: ByteBufferAllocator(), preparing: preparing))
            let text = String(buffer: answer.head)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text.contains("\r\ncontent-length: 3\r\n"))
            #expect(text.contains("\r\nCache-Status: larder; hit; ttl="))
            #expect(text.hasSuffix("\r\n\r\nONE"), "a small body follows the head in its buffer")
            #expect(answer.body == nil)
        }
        var ranged = request
        ranged.headers.add(name: "Range", value: "bytes=0-0")
        #expect(path.immediateAnswer(ranged, allocator: ByteBufferAllocator()) == nil)
    }
}
