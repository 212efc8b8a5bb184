import Foundation
import LarderHTTP
import LarderTestSupport
import Synchronization
import Testing

/// Bodies stream through the proxy both ways without being held in memory.
@Suite("End to end: streaming")
struct StreamingTests {
    @Test("a 1 GiB body streams through with flat memory, and is stored whole")
    func oneGibibyteFlatMemory() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 1 << 30
            origin.setRoute(
                "/big.bin", TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .generated(length: length)))
            let baseline = larder.anonymousBytes
            let sampler = Task {
                var peak: Int64 = 0
                while !Task.isCancelled {
                    peak = max(peak, larder.anonymousBytes)
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return peak
            }
            let (exitCode, stderr) = try await Curl.execute([
                "-sS", "-x", larder.proxyURL, "--max-time", "600", "-o", "/dev/null", "-w", "%{size_download}", origin.url("/big.bin"),
            ])
            sampler.cancel()
            let peak = await sampler.value
            #expect(exitCode == 0, "curl failed: \(stderr)")
            let growth = peak - baseline
            print("1 GiB through larder: anonymous RSS baseline \(baseline >> 20) MiB, peak \(peak >> 20) MiB, growth \(growth >> 20) MiB")
            // Flat means not in proportion to the body (held whole, it would be 1,024 MiB). Anonymous
            // memory only, so the binary's pages faulted in as new code first runs do not count;
            // even so the growth varies from run to run (2 to 48 MiB on 2026-11-27, as memory the
            // allocator keeps after freeing), so the bound leaves room for that.
            #expect(growth < 128 << 20, "anonymous RSS grew by \(growth >> 20) MiB while streaming 1 GiB")

            // Stored whole: one body file of exactly 1 GiB, named by its hash. The store commits
            // after the client has its last byte (syncing 1 GiB takes a moment), so wait for it.
            var bodies: [String] = []
            for _ in 0..<600 where bodies.isEmpty {
                bodies = filesUnder(larder.cacheDirectory + "/bodies")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(bodies.count == 1)
            let body = try #require(bodies.first)
            let size = (try? FileManager.default.attributesOfItem(atPath: larder.cacheDirectory + "/bodies/" + body)[.size] as? Int64) ?? 0
            #expect(size == length)
            #expect(bodies.first?.hasSuffix(GeneratedBody.sha256Hex(length: length)) == true, "the body file is named by its content hash")
        }
    }

    @Test("a POST body streams to the origin byte for byte, with and without a length, and is not cached")
    func requestBodies() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/upload", .dynamic { request in .text("got \(request.body.count) bytes", status: 201) })
            let directory = LarderProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let payload = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let file = directory + "/payload.bin"
            try Data(payload).write(to: URL(fileURLWithPath: file))

            let sized = try await Curl.run(origin.url("/upload"), proxy: larder.proxyURL, arguments: ["--data-binary", "@" + file])
            #expect(sized.status == 201)
            #expect(sized.text == "got 3000000 bytes")
            #expect(sized.header("cache-status")?.contains("fwd=method") == true)
            let chunked = try await Curl.run(
                origin.url("/upload"),
                proxy: larder.proxyURL,
                arguments: ["-H", "Transfer-Encoding: chunked", "--data-binary", "@" + file]
            )
            #expect(chunked.status == 201)
            let received = origin.requests("/upload")
            #expect(received.count == 2)
            let allExact = received.allSatisfy { $0.method == "POST" && $0.body == payload }
            #expect(allExact)
            #expect(filesUnder(larder.cacheDirectory + "/bodies").isEmpty, "POST answers are not stored")
        }
    }

    @Test("a small POST is sent again, not answered 502, when the kept-alive upstream connection turns out dead")
    func postRetriedOnDeadConnection() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/warm-up", .text("warm"))
            let attempts = AttemptCounter()
            origin.setRoute(
                "/form",
                .dynamic { _ in
                    // The first attempt arrives on the connection the warm-up left open, which then dies unanswered.
                    attempts.increment() == 1 ? TestResponse(faults: [.closeWithoutResponse]) : .text("saved", status: 201)
                }
            )
            _ = try await Curl.run(origin.url("/warm-up"), proxy: larder.proxyURL)

            let posted = try await Curl.run(origin.url("/form"), proxy: larder.proxyURL, arguments: ["--data", "name=larder"])

            #expect(posted.status == 201)
            #expect(posted.text == "saved")
            #expect(origin.requests("/form").map { String(decoding: $0.body, as: UTF8.self) } == ["name=larder", "name=larder"])
        }
    }

    @Test("an event stream reaches the client event by event while upstream is still sending, and is never stored")
    func eventStream() async throws {
        try await withProxy { larder, origin in
            let headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "max-age=3600")]
            let events = [Array("data: one\n\n".utf8), Array("data: two\n\n".utf8)]

            // A complete stream, even one that says max-age, is not kept.
            origin.setRoute("/short", TestResponse(headers: headers, body: .chunked(events)))
            let whole = try await Curl.run(origin.url("/short"), proxy: larder.proxyURL)
            #expect(whole.text == "data: one\n\ndata: two\n\n")
            #expect(whole.header("cache-status")?.contains("; stored") == false, "\(whole.header("cache-status") ?? "")")
            let again = try await Curl.run(origin.url("/short"), proxy: larder.proxyURL)
            #expect(again.text == "data: one\n\ndata: two\n\n")
            #expect(origin.requests("/short").count == 2, "an event stream is fetched again, not answered from the cache")

            // The second event comes a minute after the first: a proxy that buffered would show nothing.
            origin.setRoute("/live", TestResponse(headers: headers, body: .chunked(events), faults: [.delayChunks(.seconds(60))]))
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send(
                "GET \(origin.url("/live")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nAccept: text/event-stream\r\n\r\n")
            let first = await connection.read(until: "data: one")
            #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
            #expect(first.contains("data: one"), "the first event arrives before upstream has finished")
            #expect(!first.contains("data: two"))
            // Ends the stream upstream, so the proxy is not left waiting a minute for the second event.
            try await origin.stop()
        }
    }

    @Test("a chunked upstream response without a length is relayed and stored")
    func chunkedResponse() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/stream.txt",
                TestResponse(
                    headers: [("Content-Type", "text/plain")],
                    body: .chunked([Array("one,".utf8), Array("two,".utf8), Array("three".utf8)])))
            let response = try await Curl.run(origin.url("/stream.txt"), proxy: larder.proxyURL)
            #expect(response.text == "one,two,three")
            try await origin.stop()
            let cached = try await Curl.run(origin.url("/stream.txt"), proxy: larder.proxyURL)
            #expect(cached.text == "one,two,three")
            #expect(cached.header("content-length") == "13")
        }
    }
}

/// Counts a route's attempts across the origin's connection threads.
private final class AttemptCounter: Sendable {
    private let count = Mutex(0)

    /// Counts one more attempt and returns its number, from 1.
    func increment() -> Int {
        self.count.withLock { count in
            count += 1
            return count
        }
    }
}
