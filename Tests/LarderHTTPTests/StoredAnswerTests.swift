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

    struct DecodedRangeCase: Sendable, CustomTestStringConvertible {
        var request: [String: String]
        var body: StoredAnswer.Body
        var testDescription: String { "\(self.request)" }
    }

    static let decodedRangeCases = [
        // One bounded range: decoded up to its end only.
        DecodedRangeCase(request: ["Range": "bytes=100-199"], body: .decodedRange(.gzip, 100..<200)),
        DecodedRangeCase(request: ["Range": "bytes=0-0"], body: .decodedRange(.gzip, 0..<1)),
        DecodedRangeCase(request: ["Range": "bytes=5-9", "If-Range": "Tue, 01 Jan 2030 00:00:00 GMT"], body: .decodedRange(.gzip, 5..<10)),
        DecodedRangeCase(request: ["Range": "bytes=4194304-4194403"], body: .decodedRange(.gzip, 4_194_304..<4_194_404)),
        // A range starting past what is decoded cheaply would cost the body up to it for nothing
        // sent: the whole body, so the work is what is sent.
        DecodedRangeCase(request: ["Range": "bytes=4194305-4194404"], body: .decoded(.gzip)),
        DecodedRangeCase(request: ["Range": "bytes=8000000000-8000000099"], body: .decoded(.gzip)),
        // What runs to the end needs the whole body, as do several ranges; a strong If-Range never
        // matches the decoded representation's weak ETag.
        DecodedRangeCase(request: ["Range": "bytes=100-"], body: .decoded(.gzip)),
        DecodedRangeCase(request: ["Range": "bytes=-100"], body: .decoded(.gzip)),
        DecodedRangeCase(request: ["Range": "bytes=0-1,5-6"], body: .decoded(.gzip)),
        DecodedRangeCase(request: ["Range": "bytes=0-1", "If-Range": "\"v1\""], body: .decoded(.gzip)),
        DecodedRangeCase(request: [:], body: .decoded(.gzip)),
    ]

    @Test(
        "a range of a body decoded for the client is a 206 decoded up to the range's end, or the whole body", arguments: decodedRangeCases)
    func decodedRange(_ example: DecodedRangeCase) throws {
        let stored = [("Content-Encoding", "gzip"), ("ETag", "\"v1\""), ("Last-Modified", "Tue, 01 Jan 2030 00:00:00 GMT")]
        let answer = try #require(Self.plan(stored, request: example.request.map { ($0.key, $0.value) }))
        #expect(answer.body == example.body)
        if case .decodedRange = example.body {
            #expect(answer.status == 206)
            // Content-Range and Content-Length are the writer's, once it decoded the range.
            #expect(answer.headers["content-range"].isEmpty)
            #expect(answer.headers["transfer-encoding"].isEmpty)
        } else {
            #expect(answer.status == 200)
            #expect(answer.headers["transfer-encoding"] == ["chunked"])
        }
        #expect(answer.headers["content-encoding"].isEmpty)
    }

    @Test("what a decoded range sends: the bytes there are, the complete length once known, a 416 past the end")
    func decodedPart() {
        #expect(StoredAnswer.decodedPart(100..<200, decoded: 200, complete: false)! == (100..<200, "bytes 100-199/*"))
        #expect(StoredAnswer.decodedPart(100..<200, decoded: 150, complete: true)! == (100..<150, "bytes 100-149/150"))
        #expect(StoredAnswer.decodedPart(100..<200, decoded: 100, complete: true) == nil)
        #expect(StoredAnswer.decodedPart(0..<1, decoded: 0, complete: true) == nil)
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
