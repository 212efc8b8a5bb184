import LarderHTTP
import Testing

/// The endpoint a missed URL is listed under on /dev/offline (docs/SERVING.md, "Offline misses").
@Suite("Offline misses: one endpoint whatever its cache-busters")
struct OfflineMatchEndpointTests {
    @Test(
        "the URL without its fragment and the parameters the match ignores, the others kept in order",
        arguments: [
            (OfflineMatch.ignoreCacheBusters, "http://h/api/feed?_=1795492696035", "http://h/api/feed"),
            (.ignoreCacheBusters, "http://h/api/feed?1795492696035", "http://h/api/feed"),
            (.ignoreCacheBusters, "http://h/api/feed?page=2&_=1795492696035&lang=en", "http://h/api/feed?page=2&lang=en"),
            (.ignoreCacheBusters, "http://h/api/feed?r=0.8273645512#top", "http://h/api/feed"),
            (.ignoreCacheBusters, "http://h/api/feed?page=2", "http://h/api/feed?page=2"),
            (.ignoreCacheBusters, "http://h/app.js?v=7", "http://h/app.js?v=7"),
            // Chromium's updater signs each request (a key version and a nonce): not a cache-buster.
            (
                .ignoreCacheBusters, "http://update.googleapis.com/service/update2/json?cup2key=13:2734987",
                "http://update.googleapis.com/service/update2/json?cup2key=13:2734987"
            ),
            (
                .ignoreQuery, "http://update.googleapis.com/service/update2/json?cup2key=13:2734987&cup2hreq=ab12",
                "http://update.googleapis.com/service/update2/json"
            ),
            (.exact, "http://h/api/feed?_=1795492696035#x", "http://h/api/feed?_=1795492696035"),
        ]
    )
    func endpoint(match: OfflineMatch, url: String, expected: String) throws {
        #expect(match.endpoint(of: try HTTPURL(parsing: url)).absoluteString == expected)
    }
}
