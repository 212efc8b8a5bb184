import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

@Suite("/dev/offline: pages over a real store")
struct DevOfflinePagesTests {
    @Test("every page tells the time of the proxy's clock, not the machine's")
    func clock() async throws {
        let fixture = try DevOfflineFixture(now: { Date(timeIntervalSince1970: 1_700_000_000) })
        let json = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        #expect(json["generatedAt"] as? String == "2023-11-14T22:13:20Z")
        for target in ["/dev/offline", "/dev/offline/entries", "/dev/offline/games/none"] {
            #expect(await fixture.get(target).body.contains(#"<time datetime="2023-11-14T22:13:20Z">"#), "\(target)")
        }
    }

    @Test("every template compiles and renders an empty store without leftovers")
    func emptyStore() async throws {
        let fixture = try DevOfflineFixture()
        let page = await fixture.get("/dev/offline")
        #expect(page.status == 200)
        #expect(page.headers.first(name: "content-type") == "text/html; charset=utf-8")
        #expect(page.headers.first(name: "content-security-policy")?.contains("default-src 'none'") == true)
        #expect(page.body.contains("No game is precached yet."))
        #expect(page.body.contains("The cache is empty."))
        #expect(page.body.contains("No size budget set"))
        #expect(!page.body.contains("{{"), "an unrendered tag is left")
        #expect(!page.body.contains("<script"), "the page has no script")
        for target in ["/dev/offline/entries", "/dev/offline/entries?q=ab", "/dev/offline/games/none", "/dev/offline/nothing"] {
            let response = await fixture.get(target)
            #expect(!response.body.contains("{{"), "\(target)")
            #expect(response.body.hasPrefix("<!doctype html>"), "\(target)")
        }
        #expect(await fixture.get("/dev/offline/games/none").status == 404)
        #expect(await fixture.get("/dev/offline/nothing").status == 404)
    }

    @Test("hostile game names and URLs render as text, in the overview, the entry list and the game page")
    func escaping() async throws {
        let fixture = try DevOfflineFixture()
        let name = "<script>alert(1)</script>"
        try await fixture.storeGame(
            slug: "evil", displayName: name, cached: ["http://games.example/evil/a.js?x=<b>bold</b>"],
            failed: [("http://games.example/evil/\"onmouseover=\"alert(2).js", "answered <i>HTTP</i> 404")])
        try await fixture.storeEntry("http://site.example/page?<b>=1&q='\"><img/src=x/onerror=alert(3)>")
        fixture.statistics.record(
            .init(
                time: Date(), method: "GET", url: "http://site.example/<b>x</b>", status: 200, cacheStatus: "larder; hit", outcome: .hit,
                milliseconds: 1))

        for target in ["/dev/offline", "/dev/offline/entries", "/dev/offline/entries?q=%3Cb%3E", "/dev/offline/games/evil"] {
            let body = await fixture.get(target).body
            #expect(!body.contains("<script>alert"), "\(target)")
            #expect(!body.contains("<b>bold"), "\(target)")
            #expect(!body.contains("?<b>="), "\(target)")
            #expect(!body.contains("/<b>x"), "\(target)")
            #expect(!body.contains("<img"), "\(target)")
            #expect(!body.contains("<i>"), "\(target)")
            #expect(!body.contains("\"onmouseover"), "\(target)")
        }
        let overview = await fixture.get("/dev/offline").body
        #expect(overview.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(overview.contains("http://site.example/page?&lt;b&gt;=1&amp;q=&#39;&quot;&gt;&lt;img/src=x/onerror=alert(3)&gt;"))
        #expect(overview.contains("http://site.example/&lt;b&gt;x&lt;/b&gt;"))
        let search = await fixture.get("/dev/offline/entries?q=%3Cb%3E").body
        #expect(search.contains("value=\"&lt;b&gt;\""), "the search box shows the query as text")
        #expect(search.contains("Entries 1–2 of 2 whose URL contains “&lt;b&gt;”."))
        let game = await fixture.get("/dev/offline/games/evil").body
        #expect(game.contains("answered &lt;i&gt;HTTP&lt;/i&gt; 404"))
    }

    @Test("pagination: 50 a page, Previous and Next at the right places, past-the-end and bad page numbers")
    func pagination() async throws {
        let fixture = try DevOfflineFixture()
        for index in 0..<120 {
            try await fixture.storeEntry("http://site.example/item-\(index).txt")
        }
        let first = await fixture.get("/dev/offline/entries")
        #expect(first.body.occurrences(of: "name=\"key\"") == 50)
        #expect(first.body.contains("Entries 1–50 of 120."))
        #expect(first.body.contains("Page 1 of 3"))
        #expect(!first.body.contains("rel=\"prev\""))
        #expect(first.body.contains("<a rel=\"next\" href=\"/dev/offline/entries?page=2\">"))

        let last = await fixture.get("/dev/offline/entries?page=3")
        #expect(last.body.occurrences(of: "name=\"key\"") == 20)
        #expect(last.body.contains("Entries 101–120 of 120."))
        #expect(last.body.contains("<a rel=\"prev\" href=\"/dev/offline/entries?page=2\">"))
        #expect(!last.body.contains("rel=\"next\""))

        let past = await fixture.get("/dev/offline/entries?page=4")
        #expect(past.status == 200)
        #expect(past.body.occurrences(of: "name=\"key\"") == 0)
        #expect(past.body.contains("Page 4 is past the end of the list."))
        #expect(!past.body.contains("rel=\"next\""))

        for bad in ["0", "-3", "abc", ""] {
            let page = await fixture.get("/dev/offline/entries?page=\(bad)")
            #expect(page.body.contains("Entries 1–50 of 120."), "page=\(bad)")
        }
        let huge = await fixture.get("/dev/offline/entries?page=99999999999999999")
        #expect(huge.status == 200)

        let json = try DevOfflineFixture.json(await fixture.get("/dev/offline/entries.json?page=3&sort=url"))
        #expect(json["page"] as? Int == 3)
        #expect(json["total"] as? Int == 120)
        #expect(json["hasMore"] as? Bool == false)
        #expect(json["sort"] as? String == "url")
        let urls = (json["entries"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        #expect(urls.count == 20)
        #expect(urls == urls.sorted(), "sort=url orders by URL")

        let sorted = await fixture.get("/dev/offline/entries?q=item&sort=size&page=2")
        #expect(
            sorted.body.contains("href=\"/dev/offline/entries?q=item&amp;sort=size&amp;page=3\""), "links keep the search and the order")
        #expect(sorted.body.contains("<option value=\"size\" selected>"))
    }

    @Test("a search with no result says so; a too-short search asks for more; the overview shows one page only")
    func searchAndOverviewLimits() async throws {
        let fixture = try DevOfflineFixture()
        for index in 0..<60 {
            try await fixture.storeEntry("http://site.example/file-\(index).js")
        }
        let none = await fixture.get("/dev/offline/entries?q=zzqqxx")
        #expect(none.body.contains("No entry’s URL contains “zzqqxx”."))
        #expect(none.body.occurrences(of: "name=\"key\"") == 0)
        let noneJSON = try DevOfflineFixture.json(await fixture.get("/dev/offline/entries.json?q=zzqqxx"))
        #expect(noneJSON["total"] as? Int == 0)
        #expect((noneJSON["entries"] as? [Any])?.isEmpty == true)

        let short = await fixture.get("/dev/offline/entries?q=js")
        #expect(short.body.contains("Type at least 3 characters to search."))

        let found = try DevOfflineFixture.json(await fixture.get("/dev/offline/entries.json?q=FILE-5"))
        #expect(found["total"] as? Int == 11, "file-5 and file-50...file-59, without case")

        let overview = await fixture.get("/dev/offline")
        #expect(overview.body.occurrences(of: "name=\"key\"") == DevOfflinePages.pageSize)
        #expect(overview.body.contains("More entries"))
    }

    @Test("a game page checks files against the store: one removed behind its back shows as missing, not ready")
    func gameTruthfulness() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(
            slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js", "http://games.example/flip/b.css"])
        var detail = try DevOfflineFixture.json(await fixture.get("/dev/offline/games/flip.json"))
        var game = detail["game"] as? [String: Any] ?? [:]
        #expect(game["ready"] as? Bool == true)
        #expect(game["readiness"] as? String == "ready")

        try await fixture.store.removeEntry(for: try CacheKey(url: "http://games.example/flip/b.css"))
        detail = try DevOfflineFixture.json(await fixture.get("/dev/offline/games/flip.json"))
        game = detail["game"] as? [String: Any] ?? [:]
        #expect(game["ready"] as? Bool == false)
        #expect(game["readiness"] as? String == "1 of 2")
        let files = detail["files"] as? [[String: Any]] ?? []
        #expect(files.map { $0["state"] as? String } == ["cached", "missing"])
        let html = await fixture.get("/dev/offline/games/flip").body
        #expect(html.contains("Not ready: 1 of 2 listed files is not cached"))
        #expect(html.contains("recorded as cached, but no longer in the cache"))
    }

    @Test("a game or page whose stored page names a same-origin script or style that is not stored is not ready")
    func pagesNamingUnstoredScripts() async throws {
        let fixture = try DevOfflineFixture()
        @Sendable func storeHTML(_ url: String, _ html: String, kind: EntryKind) async throws {
            let writer = try fixture.store.makeBodyWriter()
            try writer.write(contentsOf: Array(html.utf8))
            let head = StoredResponseHead(
                url: url, status: 200, headers: [HeaderField(name: "Content-Type", value: "text/html; charset=utf-8")], requestTime: Date(),
                responseTime: Date())
            _ = try await writer.commit(key: try CacheKey(url: url), head: head, kind: kind, expectedLength: nil)
        }
        try await fixture.storeGame(
            slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/index.html", "http://games.example/flip/a.js"])
        try await storeHTML(
            "http://games.example/flip/index.html",
            #"<script src="a.js"></script><script src="lazy/b.js"></script><script src="https://cdn.example/x.js"></script>"#,
            kind: .precached)
        try await fixture.store.savePages([
            PrecachePageRecord(key: try CacheKey(url: "http://site.example/"), url: "http://site.example/", state: .cached, lastRun: Date())
        ])
        try await storeHTML(
            "http://site.example/", #"<link rel=stylesheet href="/s.css"><script src="/app.js"></script>"#, kind: .precached)
        try await fixture.storeEntry("http://site.example/s.css", contentType: "text/css")

        var overview = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        var game = (overview["games"] as? [[String: Any]])?.first ?? [:]
        #expect(game["ready"] as? Bool == false)
        #expect(game["readiness"] as? String == "page names 1 script or style not stored")
        #expect(game["unstoredByPage"] as? [String] == ["http://games.example/flip/lazy/b.js"])
        var page = (overview["pages"] as? [[String: Any]])?.first ?? [:]
        #expect(page["state"] as? String == "incomplete")
        #expect(page["reason"] as? String == "page names 1 script or style not stored: http://site.example/app.js")
        let html = await fixture.get("/dev/offline").body
        #expect(html.contains("page names 1 script or style not stored"))
        let gamePage = await fixture.get("/dev/offline/games/flip").body
        #expect(gamePage.contains("its page names a script or style of its own origin that is not stored"), "\(gamePage)")
        #expect(gamePage.contains("http://games.example/flip/lazy/b.js"))

        // Stored, as a variant (a browser's copy that varies on Accept-Encoding) or not: ready.
        try await fixture.storeEntry("http://games.example/flip/lazy/b.js", contentType: "text/javascript")
        let app = try CacheKey(url: "http://site.example/app.js")
        try await fixture.storeEntry("http://site.example/app.js", key: app.variant("00000000000000b2"), contentType: "text/javascript")
        overview = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        game = (overview["games"] as? [[String: Any]])?.first ?? [:]
        #expect(game["ready"] as? Bool == true)
        #expect(game["unstoredByPage"] == nil)
        page = (overview["pages"] as? [[String: Any]])?.first ?? [:]
        #expect(page["state"] as? String == "cached")
        let detail = try DevOfflineFixture.json(await fixture.get("/dev/offline/games/flip.json"))
        #expect((detail["game"] as? [String: Any])?["ready"] as? Bool == true)
    }

    @Test("overview JSON: counts, budget, readiness, hosts and recent requests")
    func overviewJSON() async throws {
        let fixture = try DevOfflineFixture(maxSize: 4096)
        try await fixture.storeGame(slug: "good", displayName: "Good", cached: ["http://games.example/good/a.js"])
        try await fixture.storeGame(
            slug: "holey", displayName: nil, cached: ["http://games.example/holey/a.js"],
            failed: [("http://games.example/holey/b.js", "answered HTTP 404")])
        try await fixture.storeEntry("http://site.example/x.css", size: 48)
        for outcome in [ProxyStatistics.Outcome.hit, .hit, .miss, .stale, .error] {
            fixture.statistics.record(
                .init(
                    time: Date(), method: "GET", url: "http://site.example/", status: 200, cacheStatus: nil, outcome: outcome,
                    milliseconds: 2))
        }
        fixture.health.recordConnectFailure(origin: "https://down.example", description: "connection refused")
        fixture.health.recordConnectFailure(origin: "https://down.example", description: "connection refused")

        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let store = report["store"] as? [String: Any] ?? [:]
        #expect(store["entries"] as? Int == 3)
        #expect(store["bytes"] as? Int == 248)
        #expect(store["precachedEntries"] as? Int == 2)
        #expect(store["runtimeEntries"] as? Int == 1)
        #expect(store["maxSize"] as? Int == 4096)
        #expect((store["budgetUsed"] as? Double).map { abs($0 - 248.0 / 4096.0) < 1e-9 } == true)
        let requests = report["requests"] as? [String: Any] ?? [:]
        #expect(requests["hits"] as? Int == 2)
        #expect(requests["misses"] as? Int == 1)
        #expect(requests["stale"] as? Int == 1)
        #expect(requests["errors"] as? Int == 1)
        #expect((requests["hitRatio"] as? Double).map { abs($0 - 0.75) < 1e-9 } == true)
        let games = report["games"] as? [[String: Any]] ?? []
        #expect(games.map { $0["readiness"] as? String } == ["ready", "1 of 2"])
        let missing = games.last?["missing"] as? [[String: Any]] ?? []
        #expect(missing.first?["reason"] as? String == "answered HTTP 404")
        let hosts = report["upstream"] as? [[String: Any]] ?? []
        #expect(hosts.first?["host"] as? String == "down.example")
        #expect(hosts.first?["origin"] as? String == "https://down.example")
        #expect(hosts.first?["state"] as? String == "backing-off")
        #expect(hosts.first?["lastError"] as? String == "connection refused")
        #expect((report["recentRequests"] as? [Any])?.count == 5)
        #expect(report["offline"] as? Bool == false)

        let html = await fixture.get("/dev/offline").body
        #expect(html.contains("1 of 2 games work offline right now. Not ready: holey (1 of 2)."))
        #expect(html.contains("Using 248 B of the 4.0 KiB budget (6%)"))
        #expect(html.contains("Origins unreachable (1)"))
        #expect(html.contains("https://down.example"))
        #expect(!html.contains(">Online<"))

        let noBudget = try DevOfflineFixture()
        let empty = try DevOfflineFixture.json(await noBudget.get("/dev/offline.json"))
        let emptyStore = empty["store"] as? [String: Any] ?? [:]
        #expect(emptyStore["maxSize"] is NSNull, "a missing budget is null, not left out")
    }

    @Test("/metrics: Prometheus text with requests by outcome, store gauges and precache files")
    func metrics() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(
            slug: "holey", displayName: nil, cached: ["http://games.example/holey/a.js"],
            failed: [("http://games.example/holey/b.js", "404")])
        fixture.statistics.record(
            .init(time: Date(), method: "GET", url: "http://a/", status: 200, cacheStatus: nil, outcome: .hit, milliseconds: 1))
        let first = await fixture.get("/metrics")
        #expect(first.headers.first(name: "content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(first.body.contains("larder_requests_total{outcome=\"hit\"} 1\n"))
        #expect(first.body.contains("larder_requests_total{outcome=\"miss\"} 0\n"))
        #expect(first.body.contains("larder_store_entries{kind=\"precached\"} 1.0\n"))
        #expect(first.body.contains("larder_store_bytes{kind=\"precached\"} 100.0\n"))
        #expect(first.body.contains("larder_precache_files{state=\"listed\"} 2.0\n"))
        #expect(first.body.contains("larder_precache_files{state=\"cached\"} 1.0\n"))
        #expect(first.body.contains("larder_precache_games{state=\"partial\"} 1.0\n"))
        #expect(first.body.contains("larder_upstream_errors_total{kind=\"transport\"} 0\n"))
        // A second scrape adds only what happened in between.
        fixture.statistics.record(
            .init(time: Date(), method: "GET", url: "http://a/", status: 200, cacheStatus: nil, outcome: .hit, milliseconds: 1))
        let second = await fixture.get("/metrics")
        #expect(second.body.contains("larder_requests_total{outcome=\"hit\"} 2\n"))
    }

    @Test("controls answer POST only; pages answer GET and HEAD only")
    func methods() async throws {
        let fixture = try DevOfflineFixture()
        let getControl = await fixture.get("/dev/offline/actions/offline")
        #expect(getControl.status == 405)
        #expect(getControl.headers.first(name: "allow") == "POST")
        #expect(fixture.offline.isOffline == false)
        let postPage = await fixture.send("POST", "/dev/offline", headers: ["Origin": DevOfflineFixture.ownOrigin], body: "")
        #expect(postPage.status == 405)
    }
}
