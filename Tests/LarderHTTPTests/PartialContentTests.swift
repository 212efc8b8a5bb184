import Testing

@testable import LarderHTTP

@Suite("Partial content: what a stored 206 holds, answers, and how parts combine")
struct PartialContentTests {
    static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    /// Bytes 4-9 of 10, as the suite's `Range: bytes=-5` setup stores them.
    static let tail = PartialContent(held: 4..<10, length: 10)

    @Test("a 206 with one Content-Range of known length is a part; anything else is not")
    func parsing() {
        let range = ("Content-Range", "bytes 4-9/10")
        #expect(PartialContent(status: 206, headers: Self.fields([range]), bodySize: 6) == Self.tail)
        #expect(PartialContent(status: 206, headers: Self.fields([range]), bodySize: nil) == Self.tail)
        #expect(
            PartialContent(status: 206, headers: Self.fields([range]), bodySize: 5) == PartialContent(held: 4..<9, length: 10),
            "a shorter body holds what it carries, from the range's start")
        #expect(PartialContent(status: 206, headers: Self.fields([range]), bodySize: 7) == nil, "a longer body is no part")
        #expect(PartialContent(status: 206, headers: Self.fields([range]), bodySize: 0) == nil)
        #expect(PartialContent(status: 200, headers: Self.fields([range]), bodySize: 6) == nil)
        #expect(PartialContent(status: 206, headers: Self.fields([("Content-Range", "bytes 4-9/*")]), bodySize: 6) == nil)
        #expect(PartialContent(status: 206, headers: Self.fields([range, range]), bodySize: 6) == nil)
        #expect(PartialContent(status: 206, headers: Self.fields([range, ("Content-Encoding", "gzip")]), bodySize: 6) == nil)
        #expect(PartialContent(status: 206, headers: Self.fields([range, ("Content-Encoding", "identity")]), bodySize: 6) == Self.tail)
        #expect(PartialContent(status: 206, headers: Self.fields([range, ("Vary", "Accept")]), bodySize: 6) == nil)
        #expect(
            PartialContent(status: 206, headers: Self.fields([("Content-Type", "multipart/byteranges; boundary=x")]), bodySize: 6) == nil)
    }

    @Test(
        "which requests bytes 4-9 of 10 answer, and with which bytes",
        arguments: [
            ("bytes=-5", 5..<10),
            ("bytes=6-8", 6..<9),
            ("bytes=6-", 6..<10),
            ("bytes=-1", 9..<10),
            ("bytes=4-9", 4..<10),
            ("bytes=8-100", 8..<10),
            ("bytes=3-5", nil),
            ("bytes=0-", nil),
            ("bytes=-7", nil),
            ("bytes=10-", nil),
            ("bytes=4-5,7-8", nil),
            ("items=4-5", nil),
        ] as [(String, Range<Int64>?)]
    )
    func answers(range: String, expected: Range<Int64>?) {
        let request = Self.fields([("Range", range)])
        #expect(Self.tail.answerRange(for: request, isGet: true, etag: nil, lastModified: nil) == expected)
    }

    @Test("never the whole, a HEAD, or a range whose If-Range does not match")
    func refuses() {
        #expect(Self.tail.answerRange(for: [HeaderField](), isGet: true, etag: nil, lastModified: nil) == nil)
        #expect(Self.tail.answerRange(for: Self.fields([("Range", "bytes=6-")]), isGet: false, etag: nil, lastModified: nil) == nil)
        let ifRange = Self.fields([("Range", "bytes=6-"), ("If-Range", "\"v2\"")])
        #expect(Self.tail.answerRange(for: ifRange, isGet: true, etag: "\"v1\"", lastModified: nil) == nil)
        #expect(Self.tail.answerRange(for: ifRange, isGet: true, etag: "\"v2\"", lastModified: nil) == 6..<10)
    }

    @Test("where held bytes sit in the stored body")
    func offsets() {
        #expect(Self.tail.bodyOffsets(of: 6..<9) == 2..<5)
        #expect(Self.tail.bodyOffsets(of: 9..<10) == 5..<6)
    }

    @Test("the one range that completes a part: after a prefix, before a suffix, none for a middle")
    func missing() {
        #expect(PartialContent(held: 0..<5, length: 10).missing == 5..<10)
        #expect(Self.tail.missing == 0..<4)
        #expect(PartialContent(held: 3..<6, length: 10).missing == nil)
        #expect(PartialContent(held: 0..<10, length: 10).missing == nil)
        #expect(PartialContent(held: 0..<10, length: 10).isComplete)
    }

    @Test(
        "how a newer part joins bytes 4-9 of 10: stored bytes before and after it, and the whole",
        arguments: [
            (0..<4, 0..<0, 0..<6, 0..<10),  // adjacent before: completes
            (0..<6, 0..<0, 2..<6, 0..<10),  // overlapping before
            (4..<10, 0..<0, 6..<6, 4..<10),  // the same bytes again
            (5..<7, 0..<1, 3..<6, 4..<10),  // inside
            (2..<3, nil, nil, nil),  // a gap: no join
        ] as [(Range<Int64>, Range<Int64>?, Range<Int64>?, Range<Int64>?)]
    )
    func combining(newer: Range<Int64>, before: Range<Int64>?, after: Range<Int64>?, combined: Range<Int64>?) {
        let combination = Self.tail.combining(PartialContent(held: newer, length: 10))
        #expect(combination?.before == before)
        #expect(combination?.after == after)
        #expect(combination?.combined.held == combined)
        if let combination {
            let written = combination.before.count + newer.count + combination.after.count
            #expect(Int64(written) == Int64(combination.combined.held.count), "the bytes written are the combined run")
        }
    }

    @Test("a prefix joined by what follows it; parts of another length never join")
    func combiningPrefix() {
        let head = PartialContent(held: 0..<5, length: 10)
        let joined = head.combining(PartialContent(held: 5..<10, length: 10))
        #expect(joined?.before == 0..<5)
        #expect(joined?.after == 5..<5)
        #expect(joined?.combined.isComplete == true)
        #expect(head.combining(PartialContent(held: 5..<11, length: 11)) == nil)
    }

    @Test("parts of one representation share a strong entity tag; none, weak or different ones never do")
    func validators() {
        let v1 = Self.fields([("ETag", "\"v1\"")])
        #expect(PartialContent.sameStrongValidator(v1, v1))
        #expect(!PartialContent.sameStrongValidator(v1, Self.fields([("ETag", "\"v2\"")])))
        #expect(!PartialContent.sameStrongValidator(Self.fields([("ETag", "W/\"v1\"")]), Self.fields([("ETag", "W/\"v1\"")])))
        #expect(!PartialContent.sameStrongValidator([HeaderField](), [HeaderField]()))
        let modified = Self.fields([("Last-Modified", "Tue, 15 Nov 1994 08:12:31 GMT")])
        #expect(!PartialContent.sameStrongValidator(modified, modified))
    }

    @Test("stored as a 206 of the bytes held, or a 200 of the complete length once whole")
    func storedHead() {
        let newest = Self.fields([("ETag", "\"v1\""), ("Content-Range", "bytes 0-3/10"), ("Content-Length", "4"), ("A", "2")])
        let part = PartialContent(held: 0..<6, length: 10).storedHead(newest: newest)
        #expect(part.status == 206)
        #expect(
            part.headers == Self.fields([("ETag", "\"v1\""), ("A", "2"), ("Content-Range", "bytes 0-5/10"), ("Content-Length", "6")]))
        let whole = PartialContent(held: 0..<10, length: 10).storedHead(newest: newest)
        #expect(whole.status == 200)
        #expect(whole.headers == Self.fields([("ETag", "\"v1\""), ("A", "2"), ("Content-Length", "10")]))
    }

    @Test("a stored part answers a held range with a 206 of its bytes, and nothing else")
    func storedAnswer() throws {
        let stored = StoredAnswer.Stored(
            status: 206,
            headers: Self.fields([("Cache-Control", "max-age=3600"), ("Content-Range", "bytes 4-9/10"), ("Content-Length", "6")]),
            bodySize: 6)
        func plan(_ headers: [(String, String)], isHead: Bool = false) -> StoredAnswer? {
            StoredAnswer.plan(
                stored, request: .init(isHead: isHead, headers: Self.fields(headers), keepAlive: true, supportsChunked: true), age: 3,
                cacheStatus: .hit(ttl: 100, detail: "partial"))
        }
        let answer = try #require(plan([("Range", "bytes=6-8")]))
        #expect(answer.status == 206)
        #expect(answer.body == .bytes(2..<5))
        #expect(answer.storedPart["content-range"] == ["bytes 6-8/10"])
        #expect(answer.storedPart["content-length"] == ["3"])
        #expect(answer.headers["age"] == ["3"])
        #expect(plan([]) == nil, "never the whole")
        #expect(plan([("Range", "bytes=0-")]) == nil, "bytes not held")
        #expect(plan([("Range", "bytes=6-")], isHead: true) == nil)
    }
}
