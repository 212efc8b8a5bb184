import Foundation
import Testing

@testable import LarderHTTP

@Suite("Cache-Control, freshness, storability")
struct CachePolicyTests {
    @Test("directives: case, quotes, duplicates, invalid numbers")
    func directives() {
        let directives = CacheControlDirectives([
            "Max-Age=60, no-cache=\"Set-Cookie, X-Foo\"", "max-age=5, MUST-REVALIDATE", "s-maxage=abc",
        ])
        #expect(directives.seconds("max-age") == .value(60))
        #expect(directives.contains("must-revalidate"))
        #expect(directives.contains("no-cache"))
        #expect(directives.seconds("s-maxage") == .invalid)
        #expect(directives.seconds("stale-if-error") == nil)
        #expect(!directives.contains("x-foo"))
        #expect(CacheControlDirectives(["max-age=99999999999999999999"]).seconds("max-age") == .value(2_147_483_648))
    }

    @Test("no whitespace around a directive's =: before it names no known directive, after it is an invalid argument")
    func directiveEquals() {
        #expect(CacheControlDirectives(["max-age =60"]).seconds("max-age") == nil)
        #expect(CacheControlDirectives(["max-age= 60"]).seconds("max-age") == .invalid)
        #expect(CacheControlDirectives([" max-age=60 , no-cache "]).seconds("max-age") == .value(60))
        #expect(CacheControlDirectives([" max-age=60 , no-cache "]).contains("no-cache"))
    }

    @Test(
        "Age: delta-seconds of the first list member, parameters dropped; anything else is ignored",
        arguments: [
            ("60", 60), (" 60 ", 60), ("7200, 0", 7200), ("0, 7200", 0), ("7200;foo=bar", 7200), ("7200;foo=111", 7200),
            ("abc", nil), ("-7200", nil), ("7200.0", nil), ("", nil), (", 5", nil),
        ] as [(String, Int?)]
    )
    func ageValues(value: String, seconds: Int?) {
        #expect(ResponseFreshness.ageSeconds(value) == seconds)
    }

    private func freshness(_ headers: [String: [String]], status: Int = 200, requestTime: Date, responseTime: Date) -> ResponseFreshness {
        ResponseFreshness(status: status, header: { headers[$0] ?? [] }, requestTime: requestTime, responseTime: responseTime)
    }

    @Test("max-age wins over Expires, and age counts from Date and Age")
    func maxAge() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        let value = self.freshness(
            [
                "cache-control": ["max-age=100"], "expires": [HTTPDate.format(t0.addingTimeInterval(5))], "date": [HTTPDate.format(t0)],
                "age": ["10"],
            ],
            requestTime: t0,
            responseTime: t0.addingTimeInterval(2)
        )
        #expect(value.lifetime == 100)
        #expect(value.currentAge(now: t0.addingTimeInterval(2)) == 12)  // Age 10 + 2 s response delay
        #expect(value.isFresh(now: t0.addingTimeInterval(50)))
        #expect(!value.isFresh(now: t0.addingTimeInterval(95)))
    }

    @Test("Expires relative to Date; invalid Expires is already stale")
    func expires() {
        let t0 = Date(timeIntervalSince1970: 2_000_000)
        let valid = self.freshness(
            ["expires": [HTTPDate.format(t0.addingTimeInterval(60))], "date": [HTTPDate.format(t0)]], requestTime: t0, responseTime: t0)
        #expect(valid.lifetime == 60)
        let invalid = self.freshness(["expires": ["0"], "date": [HTTPDate.format(t0)]], requestTime: t0, responseTime: t0)
        #expect(invalid.lifetime == 0)
        #expect(!invalid.isFresh(now: t0))
    }

    @Test("heuristic freshness is 10% of the time since Last-Modified, only for heuristically cacheable statuses")
    func heuristic() {
        let t0 = Date(timeIntervalSince1970: 3_000_000)
        let headers = ["date": [HTTPDate.format(t0)], "last-modified": [HTTPDate.format(t0.addingTimeInterval(-1000))]]
        #expect(self.freshness(headers, requestTime: t0, responseTime: t0).lifetime == 100)
        #expect(self.freshness(headers, status: 302, requestTime: t0, responseTime: t0).lifetime == 0)
    }

    @Test("a plain no-cache response is never fresh; no-cache with field names does not change freshness")
    func noCache() {
        let t0 = Date()
        #expect(self.freshness(["cache-control": ["no-cache, max-age=600"]], requestTime: t0, responseTime: t0).lifetime == 0)
        #expect(
            self.freshness(["cache-control": ["no-cache=\"Set-Cookie\", max-age=600"]], requestTime: t0, responseTime: t0).lifetime == 600)
    }

    @Test("must-revalidate is reported")
    func mustRevalidate() {
        let t0 = Date()
        #expect(self.freshness(["cache-control": ["max-age=1, must-revalidate"]], requestTime: t0, responseTime: t0).mustRevalidate)
    }

    @Test(
        "storability",
        arguments: [
            ("GET", 200, [], [], [], true),
            ("GET", 404, [], [], [], true),
            ("GET", 301, [], [], [], true),
            ("GET", 206, [], [], [], false),
            ("GET", 302, [], [], [], true),
            ("GET", 302, [], ["no-store"], [], false),
            ("POST", 302, [], [], [], false),
            ("GET", 302, [], ["max-age=60"], [], true),
            ("GET", 307, [], ["private"], [], true),
            ("GET", 400, [], ["max-age=60"], [], true),
            ("GET", 206, [], ["max-age=60"], [], false),
            ("GET", 500, [], ["max-age=60"], [], false),
            ("GET", 200, [], ["max-age=60, no-store, must-understand"], [], true),
            ("GET", 599, [], ["max-age=60, no-store, must-understand"], [], false),
            ("GET", 599, [], ["max-age=60, must-understand"], [], false),
            ("GET", 503, [], [], [], false),
            ("GET", 500, [], [], [], false),
            ("POST", 200, [], [], [], false),
            ("GET", 200, ["no-store"], [], [], false),
            ("GET", 200, [], ["public, NO-STORE"], [], false),
            ("GET", 200, [], ["private"], [], true),
            ("GET", 200, [], [], ["accept-encoding, *"], false),
            ("GET", 200, [], [], ["accept-encoding"], true),
        ] as [(String, Int, [String], [String], [String], Bool)]
    )
    func storability(method: String, status: Int, request: [String], response: [String], vary: [String], expected: Bool) {
        let result = Storability.evaluate(
            method: method, status: status, requestCacheControl: request, responseCacheControl: response, vary: vary)
        #expect((result == .storable) == expected)
    }

    @Test("stored fields: hop-by-hop, Connection-named, Set-Cookie and the fields a qualified no-cache names are dropped")
    func storableFields() {
        let headers = [
            ("Cache-Control", "max-age=60, no-cache=\"A, b\""), ("Connection", "x"), ("X", "1"), ("a", "1"), ("B", "2"), ("C", "3"),
            ("Set-Cookie", "s=1"), ("Keep-Alive", "timeout=5"),
        ].map { HeaderField(name: $0.0, value: $0.1) }
        #expect(HeaderField.storable(headers).map(\.name) == ["Cache-Control", "C"])
        let single = [HeaderField(name: "Cache-Control", value: "no-cache=a"), HeaderField(name: "A", value: "1")]
        #expect(HeaderField.storable(single).map(\.name) == ["Cache-Control"])
        let plain = [HeaderField(name: "Cache-Control", value: "no-cache"), HeaderField(name: "A", value: "1")]
        #expect(HeaderField.storable(plain).map(\.name) == ["Cache-Control", "A"])
    }

    @Test("server-sent events are never stored")
    func eventStream() {
        let result = Storability.evaluate(
            method: "GET", status: 200, requestCacheControl: [], responseCacheControl: ["max-age=60"], vary: [],
            contentType: "Text/Event-Stream; charset=utf-8")
        #expect(result == .notStorable(reason: "event-stream"))
    }

    @Test("Cache-Status values")
    func cacheStatus() {
        #expect(CacheStatus.hit(ttl: 5, detail: "upstream-unreachable").description == "larder; hit; ttl=5; detail=upstream-unreachable")
        #expect(CacheStatus.forward(.uriMiss, status: 200, stored: true).description == "larder; fwd=uri-miss; fwd-status=200; stored")
        #expect(CacheStatus.forward(.uriMiss, detail: "offline").description == "larder; fwd=uri-miss; detail=offline")
    }
}
