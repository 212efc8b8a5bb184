import LarderHTTP
import Testing

@Suite("Offline stand-ins: cache-busting queries and navigation fallbacks")
struct OfflineMatchTests {
    private func key(_ url: String) throws -> CacheKey {
        try CacheKey(url: url)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var requested: String
        var stored: String
        var match: OfflineMatch = .ignoreCacheBusters
        var accepts: Bool
        var testDescription: String { "\(self.match.rawValue): \(self.stored) for \(self.requested) → \(self.accepts)" }
    }

    static let rows: [Row] = [
        // Valueless timestamps, as the app in issue 15 sends.
        Row(requested: "http://h/api/settings?1795492696035", stored: "http://h/api/settings?1795492600000", accepts: true),
        Row(requested: "http://h/api/settings?1795492696035", stored: "http://h/api/settings", accepts: true),
        Row(requested: "http://h/api/settings", stored: "http://h/api/settings?nocache", accepts: true),
        // Timestamps (seconds, milliseconds) and Math.random() under any name, in any order.
        Row(requested: "http://h/a.css?ts=1795492696", stored: "http://h/a.css?ts=1700000000", accepts: true),
        Row(requested: "http://h/a.js?_=1795492696035&lang=en", stored: "http://h/a.js?lang=en&_=1795492600000", accepts: true),
        Row(requested: "http://h/data?r=0.8273645512", stored: "http://h/data?r=0.1122334455", accepts: true),
        Row(requested: "http://h/app.js?v=1795492696035", stored: "http://h/app.js", accepts: true),
        // Small numbers, ids, coordinates and words are meaningful.
        Row(requested: "http://h/app.js?v=7", stored: "http://h/app.js?v=6", accepts: false),
        Row(requested: "http://h/app.js?t=12", stored: "http://h/app.js", accepts: false),
        Row(requested: "http://h/api/order?id=9999999999", stored: "http://h/api/order?id=9999999998", accepts: false),
        Row(requested: "http://h/api/order?id=12345678901", stored: "http://h/api/order?id=12345678902", accepts: false),
        Row(requested: "http://h/map?lat=0.123456", stored: "http://h/map?lat=0.654321", accepts: false),
        // Meaningful parameters must agree.
        Row(requested: "http://h/api/item?id=2&_=1795492696035", stored: "http://h/api/item?id=1&_=1795492600000", accepts: false),
        Row(requested: "http://h/api/items?page=2", stored: "http://h/api/items?page=3", accepts: false),
        Row(requested: "http://h/api/items?q=cats", stored: "http://h/api/items", accepts: false),
        Row(requested: "http://h/app.js?v=abc", stored: "http://h/app.js?v=abd", accepts: false),
        Row(requested: "http://h/api/items?id=12345", stored: "http://h/api/items?id=12346", accepts: false),
        // Only the same origin and path.
        Row(requested: "http://h/api/settings?1", stored: "http://h/api/other?1", accepts: false),
        Row(requested: "http://h/api/settings?1", stored: "http://h:81/api/settings?1", accepts: false),
        Row(requested: "http://h/api/settings?1", stored: "https://h/api/settings?1", accepts: false),
        Row(requested: "http://h/a?x=1", stored: "http://h/a/b?x=1", accepts: false),
        // Variants of a sibling are candidates (Vary selection is the caller's).
        Row(requested: "http://h/api/settings?1795492696035", stored: "http://h/api/settings?1#vary=abc", accepts: true),
        // The other modes.
        Row(requested: "http://h/api/items?q=cats", stored: "http://h/api/items?q=dogs", match: .ignoreQuery, accepts: true),
        Row(requested: "http://h/api/items?q=cats", stored: "http://h/api/other", match: .ignoreQuery, accepts: false),
        Row(requested: "http://h/api/settings?1795492696035", stored: "http://h/api/settings?1", match: .exact, accepts: false),
    ]

    @Test(arguments: Self.rows)
    func accepts(_ row: Row) throws {
        #expect(row.match.accepts(try self.key(row.stored), for: try self.key(row.requested)) == row.accepts)
    }

    @Test("a keyed answer never stands in for a GET, nor anything for a keyed request; a keyed key's base is its URL's")
    func keyedKeys() throws {
        let get = try self.key("http://h/graphql?1795492696035")
        let post = try self.key("http://h/graphql").keyed(method: "POST", bodyKey: .graphql, digest: "aa")
        let other = try self.key("http://h/graphql?1795492600000").keyed(method: "POST", bodyKey: .graphql, digest: "bb")
        let plain = try self.key("http://h/graphql?1795492600000")
        for match in OfflineMatch.allCases {
            #expect(!match.accepts(post, for: get), "\(match)")
            #expect(!match.accepts(post.variant("v"), for: get), "\(match)")
            #expect(!match.accepts(plain, for: post), "\(match)")
            #expect(!match.accepts(other, for: post), "\(match)")
        }
        #expect(OfflineMatch.ignoreQuery.accepts(plain, for: get), "the same pair, unkeyed")
        #expect(post.base == "http://h/graphql")
        #expect(other.base == "http://h/graphql")
        #expect(other.queryParameters == ["1795492600000"])
    }

    @Test("a key's base ends at its query or variant suffix")
    func base() throws {
        #expect(try self.key("HTTP://H:80/a/b?x=1#frag").base == "http://h/a/b")
        #expect(CacheKey(storedRawValue: "http://h/a#vary=1").base == "http://h/a")
        #expect(try self.key("http://h/a%3Fb?c").base == "http://h/a%3Fb")
        #expect(try self.key("http://h/a?b=1&&c").queryParameters == ["b=1", "", "c"])
    }

    @Test("navigations: Sec-Fetch-Mode decides when sent, else Accept naming text/html")
    func navigation() {
        func isNavigation(_ headers: [(String, String)]) -> Bool {
            NavigationFallback.isNavigation(headers.map { HeaderField(name: $0.0, value: $0.1) })
        }
        #expect(isNavigation([("Sec-Fetch-Mode", "navigate"), ("Accept", "*/*")]))
        #expect(!isNavigation([("Sec-Fetch-Mode", "cors"), ("Accept", "text/html")]))
        #expect(isNavigation([("Accept", "text/html,application/xhtml+xml;q=0.9")]))
        #expect(!isNavigation([("Accept", "application/json")]))
        #expect(!isNavigation([]))
    }

    @Test("a navigation fallback covers its origin, within allow and outside deny")
    func fallbackCoverage() throws {
        let fallback = NavigationFallback(
            shell: try HTTPURL(parsing: "http://app.test/index.html"),
            allow: [ExcludeGlob("/app/**")],
            deny: [ExcludeGlob("/app/api/**"), ExcludeGlob("*.js")]
        )
        func covers(_ url: String) throws -> Bool {
            let parsed = try HTTPURL(parsing: url)
            return fallback.covers(parsed, key: CacheKey(url: parsed))
        }
        #expect(try covers("http://app.test/app/settings"))
        #expect(try covers("http://app.test/app/a/b?tab=2"))
        #expect(try !covers("http://app.test/about"))
        #expect(try !covers("http://app.test/app/api/me"))
        #expect(try !covers("http://app.test/app/main.js"))
        #expect(try !covers("http://other.test/app/settings"))
        let everything = NavigationFallback(shell: try HTTPURL(parsing: "http://app.test/"))
        #expect(everything.covers(try HTTPURL(parsing: "http://app.test/anything"), key: try self.key("http://app.test/anything")))
    }
}
