import Foundation
import LarderTestSupport
import Testing

/// Interim responses (RFC 9110 section 15.2) through the real binary: relayed before the final
/// response, never stored, their fields never the final response's.
@Suite("End to end: interim responses", .serialized)
struct InterimResponseTests {
    private static let hints: [(name: String, value: String)] = [
        ("Link", "</styles.css>; rel=preload; as=style"), ("X-My-Header", "test"),
    ]

    /// What `larder` answers a raw HTTP/`version` GET of `url` with, every byte of it.
    private static func raw(_ url: String, larder: LarderProcess, version: String = "1.1") async throws -> String {
        let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
        try connection.send("GET \(url) HTTP/\(version)\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return await connection.readToEnd()
    }

    @Test("102 and 103 go to the client before the final head; a cached answer has none; the 103's fields are not the final head's")
    func relayed() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/hints",
                TestResponse(
                    headers: [("Cache-Control", "max-age=3600")], body: .bytes(Array("page".utf8)),
                    faults: [.interim([(status: 102, headers: []), (status: 103, headers: Self.hints)])]))
            let first = try await Self.raw(origin.url("/hints"), larder: larder)
            let heads = first.components(separatedBy: "\r\n\r\n")
            if try await fetchesWithNIO(larder) {
                // AsyncHTTPClient drops interim heads (NIOUpstream's documented difference): the
                // client gets the final answer alone, none of the 103's fields in it.
                #expect(heads[0].hasPrefix("HTTP/1.1 200"), "\(first)")
                #expect(!first.lowercased().contains("x-my-header"))
            } else {
                #expect(heads.count >= 3, "\(first)")
                #expect(heads[0].hasPrefix("HTTP/1.1 102"), "\(heads[0])")
                #expect(heads.count > 1 && heads[1].hasPrefix("HTTP/1.1 103"), "\(heads)")
                #expect(heads.count > 1 && heads[1].lowercased().contains("link: </styles.css>; rel=preload; as=style"))
                #expect(heads.count > 1 && heads[1].lowercased().contains("x-my-header: test"))
                let final = heads.count > 2 ? heads[2].lowercased() : ""
                #expect(final.hasPrefix("http/1.1 200"), "\(final)")
                #expect(!final.contains("x-my-header"), "an interim head's fields are not the final head's")
                #expect(!final.contains("link:"))
            }
            #expect(first.hasSuffix("page"))

            let cached = try await Self.waitForHit(origin.url("/hints"), larder: larder)
            #expect(cached.hasPrefix("HTTP/1.1 200"), "a stored answer relays no interim head: \(cached)")
            #expect(!cached.lowercased().contains("x-my-header"), "nothing of the 103 was stored")
            #expect(origin.requestCount("/hints") == 1)
        }
    }

    @Test("an HTTP/1.0 client gets no interim head")
    func notToHTTP10() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/hints",
                TestResponse(
                    headers: [("Cache-Control", "no-store")], body: .bytes(Array("page".utf8)),
                    faults: [.interim([(status: 103, headers: Self.hints)])]))
            let answer = try await Self.raw(origin.url("/hints"), larder: larder, version: "1.0")
            #expect(answer.hasPrefix("HTTP/1.0 200"), "\(answer)")
            #expect(!answer.contains("103"))
        }
    }

    /// Asks until the answer comes from the cache (the row is committed just after the first
    /// client has its answer), at most 10 s.
    private static func waitForHit(_ url: String, larder: LarderProcess) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let answer = try await Self.raw(url, larder: larder)
            if answer.lowercased().contains("cache-status: larder; hit") || ContinuousClock.now > deadline { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
