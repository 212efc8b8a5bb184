import Foundation
import Testing

@testable import LarderHTTP

/// Pages a site marks `no-store`, kept on the user's request (docs/SERVING.md, "Pages marked
/// no-store, kept on request"): which answers are kept, which stored entries are kept copies, and
/// that a kept copy answers only while the origin cannot.
@Suite("Pages marked no-store, kept on request")
struct KeptNoStoreTests {
    private static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private static let adminCacheControl = "max-age=0, no-cache, no-store, must-revalidate, private"

    @Test(
        "an answer is kept only on a chosen site, and only when the response's no-store alone refuses it",
        arguments: [
            // The admin site's pages, chosen: kept.
            (
                false, CachingStrategy.http, 200, [("Cache-Control", "max-age=0, no-cache, no-store, must-revalidate, private")],
                [("Cookie", "session=1")], true, true
            ),
            (false, .http, 200, [("Cache-Control", "no-store")], [], true, true),
            (false, .networkFirst, 404, [("Cache-Control", "no-store, private")], [], true, true),
            // Not chosen: RFC 9111 holds.
            (
                false, .http, 200, [("Cache-Control", "max-age=0, no-cache, no-store, must-revalidate, private")],
                [("Cookie", "session=1")], false, false
            ),
            // No-store in the request still stores nothing.
            (false, .http, 200, [("Cache-Control", "no-store")], [("Cache-Control", "no-store")], true, false),
            // Any other refusal stands.
            (true, .http, 200, [("Cache-Control", "no-store")], [], true, false),
            (false, .networkOnly, 200, [("Cache-Control", "no-store")], [], true, false),
            (false, .http, 200, [("Cache-Control", "no-store"), ("Vary", "*")], [], true, false),
            (false, .http, 500, [("Cache-Control", "no-store")], [], true, false),
            (false, .http, 200, [("Cache-Control", "no-store"), ("Content-Type", "text/event-stream")], [], true, false),
            (false, .http, 200, [("Cache-Control", "no-store")], [("If-Match", "\"a\"")], true, false),
            // Storable anyway: nothing to keep (must-understand stores by its own rules).
            (false, .http, 200, [("Cache-Control", "private, max-age=60")], [], true, false),
            (false, .http, 200, [("Cache-Control", "no-store, must-understand, max-age=60")], [], true, false),
        ]
    )
    func keeps(
        isHead: Bool, strategy: CachingStrategy, status: Int, response: [(String, String)], request: [(String, String)], chosen: Bool,
        kept: Bool
    ) {
        let responseFields = response.map { HeaderField(name: $0.0, value: $0.1) }
        let requestFields = request.map { HeaderField(name: $0.0, value: $0.1) }
        #expect(
            KeptNoStore.keeps(
                isHead: isHead, strategy: strategy, request: requestFields, status: status, response: responseFields, siteChosen: chosen)
                == kept)
    }

    @Test(
        "a kept copy is a runtime, unkeyed entry with an owner whose response says no-store",
        arguments: [
            ("no-store, private", true, false, false, true),
            ("max-age=0, no-cache, no-store, must-revalidate, private", true, false, false, true),
            ("no-store", false, false, false, false),  // shared: no rule stores it, so not a kept copy
            ("no-store", true, true, false, false),  // precached: the precache runner's
            ("no-store", true, false, true, false),  // keyed: Answer offline's
            ("private, max-age=60", true, false, false, false),
            ("no-store, must-understand, private", true, false, false, false),
        ]
    )
    func isKept(cacheControl: String, owned: Bool, precached: Bool, keyed: Bool, expected: Bool) {
        let owner = AnswerOwner(client: .local, request: [HeaderField](), url: try! HTTPURL(parsing: "https://admin.example/"))
        #expect(
            KeptNoStore.isKept(
                headers: [HeaderField(name: "Cache-Control", value: cacheControl)], varyRequestHeaders: owned ? [owner.recorded] : [],
                precached: precached, keyed: keyed) == expected)
    }

    private static func keptFreshness(_ cacheControl: String) -> ResponseFreshness {
        var freshness = ResponseFreshness(
            status: 200, header: { $0 == "cache-control" ? [cacheControl] : ($0 == "date" ? [HTTPDate.format(t0)] : []) },
            requestTime: t0, responseTime: t0)
        freshness.keptNoStore = true
        return freshness
    }

    @Test(
        "online a kept copy is never the answer, not even fresh nor under cache-first",
        arguments: [
            (CachingStrategy.http, String?.none, CacheDecision.forward(reason: .stale, timeout: nil)),
            (.http, "max-stale", .forward(reason: .stale, timeout: nil)),
            (.cacheFirst, nil, .forward(reason: .stale, timeout: nil)),
            (.staleWhileRevalidate, nil, .forward(reason: .stale, timeout: nil)),
            (.networkFirst, nil, .forward(reason: .stale, timeout: nil)),
            (.http, "only-if-cached", .gatewayTimeout(detail: "only-if-cached")),
            (.cacheOnly, nil, .gatewayTimeout(detail: "cache-only")),
        ]
    )
    func online(strategy: CachingStrategy, request: String?, expected: CacheDecision) {
        // Fresh for an hour by its headers: still not served while the origin answers.
        let stored = Self.keptFreshness("max-age=3600, no-store, private")
        let context = CacheDecision.Context(
            strategy: strategy, networkTimeout: .seconds(3),
            request: RequestCacheDirectives(cacheControl: request.map { [$0] } ?? [], pragma: []))
        #expect(CacheDecision.decide(context, stored: stored, now: Self.t0) == expected)
    }

    @Test("while the origin cannot answer a kept copy answers and says so; a strict route does not serve it")
    func disconnected() {
        let stored = Self.keptFreshness(Self.adminCacheControl)
        let relaxed = CacheDecision.disconnectedUse(stored, precached: false, rule: .relaxed, now: Self.t0)
        #expect(relaxed == .kept)
        #expect(relaxed.detail("upstream-unreachable") == "upstream-unreachable+kept-no-store")
        #expect(CacheDecision.disconnectedUse(stored, precached: false, rule: .strict, now: Self.t0) == .forbidden(directive: "no-store"))
    }

    @Test("the sites seen sending no-store: counted, latest URL and time, most recent first, bounded")
    func sightings() {
        var sightings = NoStoreSightings(capacity: 2)
        sightings.record(origin: "https://admin.example", url: "https://admin.example/a", at: Self.t0)
        sightings.record(origin: "https://shop.example", url: "https://shop.example/cart", at: Self.t0.addingTimeInterval(1))
        sightings.record(origin: "https://admin.example", url: "https://admin.example/b", at: Self.t0.addingTimeInterval(2))
        #expect(sightings.all.map(\.origin) == ["https://admin.example", "https://shop.example"])
        #expect(sightings.all.first?.count == 2)
        #expect(sightings.all.first?.latestURL == "https://admin.example/b")
        sightings.record(origin: "https://third.example", url: "https://third.example/", at: Self.t0.addingTimeInterval(3))
        #expect(sightings.all.map(\.origin) == ["https://third.example", "https://admin.example"])
    }

    @Test("keep-no-store.json: read and written back; a broken file is refused naming the file")
    func file() throws {
        let sites = try KeptNoStoreSites(
            parsing: Array(#"{"sites": ["https://Admin.example:443", "http://127.0.0.1:8899", "https://admin.example"]}"#.utf8),
            file: "keep-no-store.json")
        #expect(sites.origins == ["https://admin.example", "http://127.0.0.1:8899"])
        #expect(try KeptNoStoreSites(parsing: sites.bytes, file: "x") == sites)
        // When a site was chosen is kept with it, and read back.
        var timed = sites
        timed.chosenAt["https://admin.example"] = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(String(decoding: timed.bytes, as: UTF8.self).contains(#"{"chosenAt":"2026-11-18T"#))
        #expect(try KeptNoStoreSites(parsing: timed.bytes, file: "x") == timed)
        let object = try KeptNoStoreSites(
            parsing: Array(#"{"sites": [{"origin": "https://admin.example", "chosenAt": "2026-11-28T22:00:00Z"}]}"#.utf8), file: "x")
        #expect(object.chosenAt["https://admin.example"] == Date(timeIntervalSince1970: 1_795_903_200))
        for broken in [
            #"{"sites": ["https://admin.example/page"]}"#, #"{"site": []}"#, "{", #"{"sites": [1]}"#,
            #"{"sites": [{"origin": "https://admin.example", "chosenAt": "yesterday"}]}"#,
            #"{"sites": [{"origin": "https://admin.example", "by": "me"}]}"#,
        ] {
            do {
                _ = try KeptNoStoreSites(parsing: Array(broken.utf8), file: "/cache/keep-no-store.json")
                Issue.record("\(broken) was read")
            } catch {
                #expect(error.description.hasPrefix("/cache/keep-no-store.json"), "\(error)")
            }
        }
    }
}
