import LarderHTTP
import Testing

/// Which page a write comes from, and so whether a queue route may queue it (docs/SERVING.md,
/// "Who may queue a write").
@Suite("Write sources")
struct WriteSourceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var url = "https://api.example/graphql"
        var origin: String?
        var fetchSite: String?
        var pageOrigins: Set<String> = []
        var source: WriteSource
        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(name: "no Origin, no Sec-Fetch-Site: curl or a native app", source: .noPage),
        Case(name: "the URL's own origin", origin: "https://api.example", source: .ownPage),
        Case(name: "the URL's own origin, spelled with case and the default port", origin: "HTTPS://API.example:443", source: .ownPage),
        Case(name: "another port is another origin", origin: "https://api.example:8443", source: .otherSite),
        Case(name: "http is another origin", origin: "http://api.example", source: .otherSite),
        Case(name: "another site's page", origin: "https://evil.example", source: .otherSite),
        Case(name: "an opaque origin (a sandboxed frame, a data: URL)", origin: "null", source: .otherSite),
        Case(name: "an Origin that is no origin", origin: "not a url", source: .otherSite),
        Case(
            name: "the browser says same-site (a sibling subdomain)", origin: "https://www.example", fetchSite: "same-site",
            source: .ownPage),
        Case(name: "the browser says same-origin", origin: "https://api.example", fetchSite: "same-origin", source: .ownPage),
        Case(name: "Sec-Fetch-Site alone, same-origin, any case", fetchSite: " Same-Origin ", source: .ownPage),
        Case(name: "the user's own action (typed, a bookmark)", fetchSite: "none", source: .ownPage),
        Case(name: "the browser says cross-site", origin: "https://evil.example", fetchSite: "cross-site", source: .otherSite),
        Case(name: "cross-site without an Origin", fetchSite: "cross-site", source: .otherSite),
        Case(
            name: "a listed page origin on another site", origin: "https://www.puzzmo.com", fetchSite: "cross-site",
            pageOrigins: ["https://www.puzzmo.com"], source: .ownPage),
        Case(
            name: "a listed page origin, without Sec-Fetch-Site (an older browser)", origin: "https://www.puzzmo.com:443",
            pageOrigins: ["https://www.puzzmo.com"], source: .ownPage),
        Case(
            name: "an origin not listed", origin: "https://evil.example", fetchSite: "cross-site", pageOrigins: ["https://www.puzzmo.com"],
            source: .otherSite),
        Case(name: "null is never listed", origin: "null", pageOrigins: ["https://www.puzzmo.com"], source: .otherSite),
    ]

    @Test("own page, no page, another site", arguments: Self.cases)
    func sources(_ example: Case) throws {
        var request: [HeaderField] = []
        if let origin = example.origin { request.append(HeaderField(name: "Origin", value: origin)) }
        if let site = example.fetchSite { request.append(HeaderField(name: "Sec-Fetch-Site", value: site)) }
        let source = WriteSource(url: try HTTPURL(parsing: example.url), request: request, pageOrigins: example.pageOrigins)
        #expect(source == example.source)
        #expect(source.mayQueue == (example.source != .otherSite))
    }

    @Test(
        "JSON media types: application/json, text/json, any +json; parameters and case ignored",
        arguments: [
            ("application/json", true), ("Application/JSON; charset=utf-8", true), ("text/json", true),
            ("application/vnd.api+json", true), ("application/ld+json;profile=x", true), ("text/plain", false),
            ("text/plain;charset=UTF-8", false), ("application/x-www-form-urlencoded", false), ("multipart/form-data; boundary=x", false),
            ("+json", false), ("application/+json", false), ("/+jsonx", false), ("application/jsonp", false), ("", false),
        ])
    func jsonMediaTypes(_ contentType: String, _ isJSON: Bool) {
        #expect(JSONMediaType.names(contentType) == isJSON)
    }

    @Test("no Content-Type is not JSON")
    func noContentType() {
        #expect(!JSONMediaType.names(nil))
    }

    @Test(
        "queue limits: the count and the bytes, what is kept counted, the write added",
        arguments: [
            (0, Int64(0), Int64(10), nil),
            (2, Int64(0), Int64(10), nil),
            (3, Int64(0), Int64(0), WriteQueueLimits.Exceeded.writes(limit: 3)),
            (4, Int64(0), Int64(0), WriteQueueLimits.Exceeded.writes(limit: 3)),
            (0, Int64(90), Int64(10), nil),
            (0, Int64(90), Int64(11), WriteQueueLimits.Exceeded.bytes(limit: 100)),
            (0, Int64(0), Int64(101), WriteQueueLimits.Exceeded.bytes(limit: 100)),
            (0, Int64(0), Int64.max, WriteQueueLimits.Exceeded.bytes(limit: 100)),
        ] as [(Int, Int64, Int64, WriteQueueLimits.Exceeded?)])
    func limits(_ writes: Int, _ bytes: Int64, _ size: Int64, _ exceeded: WriteQueueLimits.Exceeded?) {
        #expect(WriteQueueLimits(maxWrites: 3, maxBytes: 100).exceeded(writes: writes, bytes: bytes, adding: size) == exceeded)
    }

    @Test("the default limits are 1,000 writes and 64 MiB, and a refusal names its config key")
    func defaultLimits() {
        #expect(WriteQueueLimits() == WriteQueueLimits(maxWrites: 1000, maxBytes: 64 * 1024 * 1024))
        #expect(WriteQueueLimits.Exceeded.writes(limit: 1000).description.contains("at most 1000 writes (queue.maxWrites)"))
        #expect(WriteQueueLimits.Exceeded.bytes(limit: 5).description.contains("at most 5 bytes of bodies (queue.maxBytes)"))
    }
}
