import Testing

@testable import LarderHTTP

@Suite("Stored answers: stored fields and codings")
struct StoredAnswerTests {
    private static func plan(_ stored: [(String, String)], request: [(String, String)] = []) -> StoredAnswer? {
        StoredAnswer.plan(
            StoredAnswer.Stored(status: 200, headers: stored.map { HeaderField(name: $0.0, value: $0.1) }, bodySize: 10),
            request: StoredAnswer.Request(
                isHead: false, headers: request.map { HeaderField(name: $0.0, value: $0.1) }, keepAlive: true, supportsChunked: true),
            age: 0,
            cacheStatus: CacheStatus.hit()
        )
    }

    @Test("a stored Content-Range goes with the whole response; a 206 cut from it says its own range only")
    func storedContentRange() throws {
        let stored = [("Content-Type", "text/plain"), ("Content-Range", "whatever the origin said")]
        let whole = try #require(Self.plan(stored))
        #expect(whole.status == 200)
        #expect(whole.headers["content-range"] == ["whatever the origin said"])
        let partial = try #require(Self.plan(stored, request: [("Range", "bytes=0-1")]))
        #expect(partial.status == 206)
        #expect(partial.headers["content-range"] == ["bytes 0-1/10"])
    }

    @Test("a coding the client does not accept: gzip undone, another registered one refused, an unregistered one sent as stored")
    func codings() {
        func plan(_ coding: String, accept: [String]) -> EncodingNegotiation.Plan {
            EncodingNegotiation.plan(contentEncoding: [coding], request: accept.map { HeaderField(name: "Accept-Encoding", value: $0) })
        }
        #expect(plan("gzip", accept: []) == .decode(.gzip))
        #expect(plan("br", accept: ["gzip"]) == .unusable)
        #expect(plan("x-made-up", accept: ["gzip"]) == .asIs)
        #expect(plan("br", accept: ["br"]) == .asIs)
        #expect(
            Self.plan([("Content-Encoding", "x-made-up")], request: [("Accept-Encoding", "gzip")])?.headers["content-encoding"] == [
                "x-made-up"
            ])
    }
}
