import Testing

@testable import LarderHTTP

@Suite("Range requests: parsing, resolving against a length, If-Range")
struct ByteRangeRequestTests {
    @Test(
        "a Range value resolved against a 10000-byte body",
        arguments: [
            ("bytes=0-499", ByteRangeRequest.Resolution.partial(0..<500)),
            ("bytes=1000-1999", .partial(1000..<2000)),
            ("bytes=9500-", .partial(9500..<10000)),
            ("bytes=-500", .partial(9500..<10000)),
            ("bytes=-20000", .partial(0..<10000)),
            ("bytes=9999-99999", .partial(9999..<10000)),
            ("bytes=0-0", .partial(0..<1)),
            (" BYTES = 5-9 ", .partial(5..<10)),
            ("bytes=10000-", .unsatisfiable),
            ("bytes=10000-10005", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=99999999999999999999999-", .unsatisfiable),
            ("bytes=0-9223372036854775807", .partial(0..<10000)),
            ("bytes=9223372036854775807-", .unsatisfiable),
            ("bytes=0-1,5-9", .full),
            ("bytes=0-1, ,", .partial(0..<2)),
        ]
    )
    func resolves(value: String, expected: ByteRangeRequest.Resolution) throws {
        let range = try #require(ByteRangeRequest(value))
        #expect(range.resolve(length: 10000) == expected)
    }

    @Test(
        "invalid syntax and other units are ignored",
        arguments: ["items=0-5", "bytes=", "bytes=5", "bytes=5-1", "bytes=a-b", "bytes=-", "bytes=1-2-3", "bytes=+1-2", "0-5", ""])
    func invalid(value: String) {
        #expect(ByteRangeRequest(value) == nil)
    }

    @Test("an empty body satisfies no range")
    func emptyBody() throws {
        #expect(try #require(ByteRangeRequest("bytes=0-")).resolve(length: 0) == .unsatisfiable)
        #expect(try #require(ByteRangeRequest("bytes=-5")).resolve(length: 0) == .unsatisfiable)
    }

    @Test("Content-Range values")
    func contentRange() {
        #expect(ByteRangeRequest.contentRange(1000..<2000, length: 5000) == "bytes 1000-1999/5000")
        #expect(ByteRangeRequest.unsatisfiedContentRange(length: 5000) == "bytes */5000")
    }

    @Test(
        "Content-Range values parsed: the range held and the complete length",
        arguments: [
            ("bytes 4-9/10", 4..<10, 10),
            ("bytes 0-4/10", 0..<5, 10),
            (" Bytes 0-0/1 ", 0..<1, 1),
        ] as [(String, Range<Int64>, Int64)]
    )
    func parsesContentRange(value: String, range: Range<Int64>, length: Int64) throws {
        let parsed = try #require(ByteRangeRequest.parseContentRange(value))
        #expect(parsed.range == range)
        #expect(parsed.length == length)
    }

    @Test(
        "Content-Range values that name no stored part",
        arguments: ["bytes 0-4/*", "bytes */10", "bytes 5-4/10", "bytes 0-10/10", "items 0-4/10", "bytes 0-4", "bytes a-4/10", ""])
    func refusesContentRange(value: String) {
        #expect(ByteRangeRequest.parseContentRange(value) == nil)
    }

    @Test("Range values asking for missing bytes: open-ended to the end")
    func rangeValues() {
        #expect(ByteRangeRequest.rangeValue(5..<10, length: 10) == "bytes=5-")
        #expect(ByteRangeRequest.rangeValue(0..<4, length: 10) == "bytes=0-3")
    }

    @Test("If-Range: a strong entity tag or the exact Last-Modified date allows the range")
    func ifRange() {
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        #expect(ByteRangeRequest.ifRangeAllowsRange(nil, etag: nil, lastModified: nil))
        #expect(ByteRangeRequest.ifRangeAllowsRange("\"v1\"", etag: "\"v1\"", lastModified: nil))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("\"v2\"", etag: "\"v1\"", lastModified: nil))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("W/\"v1\"", etag: "W/\"v1\"", lastModified: nil), "weak tags never match strongly")
        #expect(!ByteRangeRequest.ifRangeAllowsRange("\"v1\"", etag: "W/\"v1\"", lastModified: nil))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("\"v1\"", etag: nil, lastModified: modified))
        #expect(ByteRangeRequest.ifRangeAllowsRange(modified, etag: "\"v1\"", lastModified: modified))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("Tue, 15 Nov 1994 08:12:32 GMT", etag: nil, lastModified: modified))
        #expect(!ByteRangeRequest.ifRangeAllowsRange(modified, etag: nil, lastModified: nil))
        #expect(!ByteRangeRequest.ifRangeAllowsRange("not a date", etag: nil, lastModified: modified))
    }
}
