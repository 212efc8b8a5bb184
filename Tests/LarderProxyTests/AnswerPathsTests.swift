import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// The immediate path keeps the ordinary path's plan (``StoredAnswer``) serialised: for every
/// request it answers, the bytes are the ones the ordinary path writes.
@Suite("Immediate and ordinary hits answer with the same bytes")
struct AnswerPathsTests {
    /// A fixed clock, so that `Age` is the same on both paths (whole seconds: the index keeps times
    /// to the millisecond).
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    @Test(
        "same status line, headers in the same order, same body",
        arguments: [
            (
                "fresh runtime entry", "http://site.example/a.js",
                [("Cache-Control", "max-age=3600"), ("Content-Type", "text/javascript")], EntryKind.runtime, HTTPMethod.GET,
                HTTPVersion.http1_1, [(String, String)]()
            ),
            ("HEAD", "http://site.example/b.js", [("Cache-Control", "max-age=3600")], .runtime, .HEAD, .http1_1, []),
            ("HTTP/1.0 client", "http://site.example/c.js", [("Cache-Control", "max-age=3600")], .runtime, .GET, .http1_0, []),
            (
                "closing client", "http://site.example/d.js", [("Cache-Control", "max-age=3600")], .runtime, .GET, .http1_1,
                [("Connection", "close")]
            ),
            (
                "stored Via and ETag", "http://site.example/e.js",
                [("Cache-Control", "max-age=3600"), ("Via", "1.1 cdn"), ("ETag", "\"e\"")], .runtime, .GET, .http1_1, []
            ),
            ("precached, stale, cache-first", "http://site.example/f.js", [("Cache-Control", "max-age=1")], .precached, .GET, .http1_1, []),
            (
                "gzip for a client that takes it", "http://site.example/g.js",
                [("Cache-Control", "max-age=3600"), ("Content-Encoding", "gzip")], .runtime, .GET, .http1_1, [("Accept-Encoding", "gzip")]
            ),
        ]
    )
    func sameBytes(
        name: String,
        url: String,
        stored: [(String, String)],
        kind: EntryKind,
        method: HTTPMethod,
        version: HTTPVersion,
        request: [(String, String)]
    ) async throws {
        let fixture = try ImmediateHitsTests.Fixture(now: { Self.now })
        try await fixture.store(url, body: "BODY of \(name)", headers: stored, kind: kind, responseTime: Self.now.addingTimeInterval(-30))
        let immediate = try #require(
            await fixture.answer(url, method: method, version: version, headers: request), "\(name): no immediate answer")
        let ordinary = try await fixture.ordinaryAnswer(url, method: method, version: version, headers: request)
        #expect(immediate.head == ordinary.head, "\(name)")
        #expect(immediate.body == ordinary.body, "\(name)")
        #expect(immediate.head.contains("age: 30\r\n"), "\(name)")
    }

    @Test(
        "inside intercepted TLS, an origin-form hit gets the bytes the ordinary path writes for its https URL",
        arguments: [("https://site.example/t.js", 443), ("https://site.example:8443/t.js", 8443)]
    )
    func sameBytesInsideTLS(url: String, port: Int) async throws {
        let fixture = try ImmediateHitsTests.Fixture(now: { Self.now })
        try await fixture.store(
            url, body: "BODY over TLS", headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "text/javascript")],
            responseTime: Self.now.addingTimeInterval(-30))
        let tunnel = TunnelOrigin(scheme: "https", host: "site.example", port: port)
        let immediate = try #require(await fixture.answer("/t.js", tunnel: tunnel), "no immediate answer inside the tunnel")
        // Counted under its full URL, as the ordinary path counts it.
        #expect(fixture.statistics.recentRequests().first?.url == url)
        let ordinary = try await fixture.ordinaryAnswer(url)
        #expect(immediate.head == ordinary.head)
        #expect(immediate.body == ordinary.body)
        #expect(immediate.body == "BODY over TLS")
    }

    @Test("a body too large to keep in memory goes by sendfile, with the same bytes as read through the thread pool")
    func largeBody() async throws {
        let fixture = try ImmediateHitsTests.Fixture(now: { Self.now })
        let body = String(repeating: "0123456789abcdef", count: 40_000)
        try await fixture.store("http://site.example/big.bin", body: body, responseTime: Self.now)
        let ordinary = try await fixture.ordinaryAnswer("http://site.example/big.bin")
        let immediate = try #require(await fixture.answer("http://site.example/big.bin"))
        #expect(immediate.head == ordinary.head)
        #expect(immediate.body == ordinary.body)
        #expect(ordinary.body == body)
    }
}
