import Testing

@testable import LarderHTTP

struct CacheKeyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var expected: String
        var filter: QueryParameterFilter = .default

        var testDescription: String { self.input }
    }

    static let cases: [Case] = [
        // Fragments.
        Case(
            input: "https://cdn.example/games/runtime.html#gameplay=1a2b&bg=FFEEBB",
            expected: "https://cdn.example/games/runtime.html"
        ),
        Case(input: "https://cdn.example/games/runtime.html", expected: "https://cdn.example/games/runtime.html"),
        Case(input: "http://example.com#top", expected: "http://example.com/"),
        Case(input: "https://example.com/p?a=1#frag?b=2", expected: "https://example.com/p?a=1"),
        // Scheme and host case; the path keeps its case.
        Case(input: "HTTP://Example.COM/Path/File.JS", expected: "http://example.com/Path/File.JS"),
        Case(input: "HtTpS://WWW.Example.Com/", expected: "https://www.example.com/"),
        // Ports.
        Case(input: "http://example.com:80/a", expected: "http://example.com/a"),
        Case(input: "https://example.com:443/a", expected: "https://example.com/a"),
        Case(input: "http://example.com:443/a", expected: "http://example.com:443/a"),
        Case(input: "https://example.com:80/a", expected: "https://example.com:80/a"),
        Case(input: "http://example.com:8080/a", expected: "http://example.com:8080/a"),
        Case(input: "https://example.com:8443", expected: "https://example.com:8443/"),
        Case(input: "http://example.com:/a", expected: "http://example.com/a"),
        Case(input: "http://127.0.0.1:8080/dev/offline", expected: "http://127.0.0.1:8080/dev/offline"),
        // Empty path.
        Case(input: "http://example.com", expected: "http://example.com/"),
        Case(input: "http://example.com?x=1", expected: "http://example.com/?x=1"),
        // Percent-encoding: unreserved decoded, others upper-cased, invalid escapes kept.
        Case(input: "http://example.com/%7Euser/%41bc", expected: "http://example.com/~user/Abc"),
        Case(input: "http://example.com/a%2db%2Ec%5fd%30", expected: "http://example.com/a-b.c_d0"),
        Case(input: "http://example.com/a%2fb", expected: "http://example.com/a%2Fb"),
        Case(input: "http://example.com/caf%c3%a9", expected: "http://example.com/caf%C3%A9"),
        Case(input: "http://example.com/?q=%7e%2f%3d", expected: "http://example.com/?q=~%2F%3D"),
        Case(input: "http://example.com/100%zz%4", expected: "http://example.com/100%zz%4"),
        // A decoded escape never makes a new one with a stray "%" before it ("%%41" is not "%A").
        Case(input: "http://example.com/%%41", expected: "http://example.com/%%41"),
        Case(input: "http://example.com/%a%62c?q=%4%31", expected: "http://example.com/%a%62c?q=%4%31"),
        // Dot segments (path only, never the query).
        Case(input: "http://example.com/a/./b/../c", expected: "http://example.com/a/c"),
        Case(input: "http://example.com/a/b/../../../c", expected: "http://example.com/c"),
        Case(input: "http://example.com/a/b/..", expected: "http://example.com/a/"),
        Case(input: "http://example.com/a/%2E%2e/b", expected: "http://example.com/b"),
        Case(input: "http://example.com/./", expected: "http://example.com/"),
        Case(input: "http://example.com/a/..b/.c/", expected: "http://example.com/a/..b/.c/"),
        Case(input: "http://example.com/x?path=/a/../b", expected: "http://example.com/x?path=/a/../b"),
        // Ignored parameters at the start, middle and end.
        Case(input: "https://example.com/p?utm_source=x&a=1", expected: "https://example.com/p?a=1"),
        Case(input: "https://example.com/p?a=1&utm_campaign=spring&b=2", expected: "https://example.com/p?a=1&b=2"),
        Case(input: "https://example.com/p?a=1&b=2&fbclid=IwAR0abc", expected: "https://example.com/p?a=1&b=2"),
        // All parameters ignored, or an empty query: no "?".
        Case(input: "https://example.com/p?utm_source=x&utm_medium=y&fbclid=z", expected: "https://example.com/p"),
        Case(input: "https://example.com/p?", expected: "https://example.com/p"),
        Case(input: "https://example.com/p?utm_source=x#frag", expected: "https://example.com/p"),
        // Names match whole, case-sensitively, after percent-decoding.
        Case(
            input: "https://example.com/p?UTM_SOURCE=x&fbclid2=y",
            expected: "https://example.com/p?UTM_SOURCE=x&fbclid2=y"
        ),
        Case(input: "https://example.com/p?utm%5Fsource=x&a=1", expected: "https://example.com/p?a=1"),
        Case(input: "https://example.com/p?utm_=x&utm=y", expected: "https://example.com/p?utm=y"),
        // Order preserved; "="-less and empty parameters kept.
        Case(input: "https://example.com/p?b=2&a=1&c=3", expected: "https://example.com/p?b=2&a=1&c=3"),
        Case(input: "https://example.com/p?flag&a=1&empty=", expected: "https://example.com/p?flag&a=1&empty="),
        Case(input: "https://example.com/p?x=1&&y=2", expected: "https://example.com/p?x=1&&y=2"),
        Case(input: "https://example.com/p?fbclid&keep", expected: "https://example.com/p?keep"),
        // "+" and encoded spaces are not touched.
        Case(input: "https://example.com/s?q=a+b&r=a%20b", expected: "https://example.com/s?q=a+b&r=a%20b"),
        Case(input: "https://example.com/a+b%20c", expected: "https://example.com/a+b%20c"),
        // Custom filters.
        Case(
            input: "https://example.com/p?sessionid=1&a=1&x_ts=5&utm_source=q",
            expected: "https://example.com/p?a=1&utm_source=q",
            filter: QueryParameterFilter(patterns: ["session*", "*_ts"])
        ),
        Case(
            input: "https://example.com/p?utm_source=x&fbclid=y",
            expected: "https://example.com/p?utm_source=x&fbclid=y",
            filter: .none
        ),
        Case(
            input: "https://example.com/p?cb=123&v=2",
            expected: "https://example.com/p?v=2",
            filter: QueryParameterFilter(patterns: ["cb"])
        ),
        // IPv6 hosts.
        Case(input: "http://[::1]/", expected: "http://[::1]/"),
        Case(input: "http://[::1]:80/x", expected: "http://[::1]/x"),
        Case(input: "http://[2001:DB8::1]:8080/x", expected: "http://[2001:db8::1]:8080/x"),
        Case(input: "https://[2001:db8::1]:443", expected: "https://[2001:db8::1]/"),
        // Non-ASCII path bytes are percent-encoded, as a browser sends them.
        Case(input: "https://example.com/café", expected: "https://example.com/caf%C3%A9"),
    ]

    @Test(arguments: Self.cases)
    func normalises(_ testCase: Case) throws {
        let key = try CacheKey(url: testCase.input, filter: testCase.filter)
        #expect(key.rawValue == testCase.expected)
        #expect(key.description == testCase.expected)
        // Normalising is idempotent: a key parsed again is the same key.
        #expect(try CacheKey(url: key.rawValue, filter: testCase.filter) == key)
    }

    @Test
    func hasEnoughCases() {
        #expect(Self.cases.count >= 35)
    }

    @Test
    func fragmentVariantsAreOneKey() throws {
        let withFragment = try CacheKey(url: "https://cdn.example/runtime.html#gameplay=1a2b&bg=FFEEBB")
        let plain = try CacheKey(url: "https://cdn.example/runtime.html")
        let tracked = try CacheKey(url: "HTTPS://CDN.example:443/runtime.html?utm_source=news#x")
        #expect(withFragment == plain)
        #expect(tracked == plain)
        #expect(Set([withFragment, plain, tracked]).count == 1)
    }

    @Test
    func initFromParsedURLMatchesInitFromString() throws {
        let url = try HTTPURL(parsing: "http://Example.com:80/a/../b?utm_medium=x&q=1")
        #expect(CacheKey(url: url) == (try CacheKey(url: "http://example.com/b?q=1")))
    }

    @Test
    func ordersByRawValue() throws {
        let keys = try ["https://b.example/", "http://a.example/z", "https://a.example/"].map { try CacheKey(url: $0) }
        #expect(keys.sorted().map(\.rawValue) == ["http://a.example/z", "https://a.example/", "https://b.example/"])
    }

    @Test
    func rejectsWhatHTTPURLRejects() {
        #expect(throws: URLParseError.self) {
            try CacheKey(url: "ftp://example.com/file")
        }
    }
}

struct QueryParameterFilterTests {
    @Test
    func defaultIgnoresTrackingParameters() {
        let filter = QueryParameterFilter.default
        #expect(filter.patterns == ["utm_*", "fbclid"])
        #expect(filter.ignores("utm_source"))
        #expect(filter.ignores("utm_"))
        #expect(filter.ignores("fbclid"))
        #expect(!filter.ignores("utm"))
        #expect(!filter.ignores("Utm_source"))
        #expect(!filter.ignores("fbclid_x"))
        #expect(!filter.ignores("xfbclid"))
        #expect(!filter.ignores(""))
    }

    @Test
    func starMatchesAnyRunAnywhere() {
        let filter = QueryParameterFilter(patterns: ["a*b*c", "*_ts", "*"])
        #expect(filter.ignores("anything"))
        let specific = QueryParameterFilter(patterns: ["a*b*c", "*_ts"])
        #expect(specific.ignores("abc"))
        #expect(specific.ignores("aXbYc"))
        #expect(specific.ignores("abbbcbc"))
        #expect(!specific.ignores("abcd"))
        #expect(!specific.ignores("acb"))
        #expect(specific.ignores("load_ts"))
        #expect(specific.ignores("_ts"))
        #expect(!specific.ignores("load_tsx"))
    }
}
