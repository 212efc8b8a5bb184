import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// /dev/offline with the real binary: the JSON after a known sequence of requests, escaping, the
/// controls and their effects, the CLI twins, and a real browser.
@Suite("End to end: /dev/offline", .serialized)
struct DevOfflineTests {
    /// An origin serving the demo site plus a game `holey` whose second file is a 404.
    private static func demoOrigin() async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        origin.setRoute(
            "/games/holey/offline.meta.json",
            .text(#"{"files": ["holey/index.html", "holey/missing.js"]}"#, contentType: "application/json"))
        origin.setRoute("/games/holey/index.html", .text("<p>holey</p>", contentType: "text/html"))
        return origin
    }

    /// games.txt for the demo plus holey; `larder precache` into `cache` (exit 1: holey is partial).
    private static func precacheDemo(origin: TestOrigin, directory: String, cache: String) async throws {
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: list))
        handle.seekToEndOfFile()
        handle.write(Data("\(origin.url("/games/holey"))\n".utf8))
        try handle.close()
        let run = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(run.exitCode == 1, "holey has a 404 file:\n\(run.stdout)\(run.stderr)")
    }

    private static func json(_ url: String) async throws -> [String: Any] {
        let response = try await Curl.run(url, proxy: nil)
        #expect(response.status == 200, "\(url): \(response.status) \(response.text.prefix(300))")
        #expect(response.header("content-type") == "application/json")
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// POSTs a control form, as the page's own button would (or as `origin` when given).
    private static func control(_ larder: LarderProcess, _ name: String, form: [String: String], origin: String?) async throws -> CurlResult
    {
        var arguments = ["-X", "POST"]
        if let origin { arguments += ["-H", "Origin: \(origin)"] }
        for (key, value) in form.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(key)=\(value)"]
        }
        return try await Curl.run(larder.proxyURL + "/dev/offline/actions/" + name, proxy: nil, arguments: arguments)
    }

    @Test("after precache, runtime fetches, a failed file and an offline miss, every count and state in the JSON is exact")
    func knownSequence() async throws {
        let origin = try await Self.demoOrigin()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        try await Self.precacheDemo(origin: origin, directory: directory, cache: cache)
        origin.setRoute("/api/one.json", .text("{}", contentType: "application/json", headers: [("Cache-Control", "max-age=600")]))
        origin.setRoute("/api/two.txt", .text("revalidate me", headers: [("Cache-Control", "max-age=0")]))

        let larder = try await LarderProcess(serve: ["--max-size", "4MiB"], cacheDirectory: cache)
        do {
            let proxy = larder.proxyURL
            // miss, miss, hit (precached: no network), stale (origin gone), hit (offline), offline miss.
            #expect(try await Curl.run(origin.url("/api/one.json"), proxy: proxy).header("cache-status")?.contains("stored") == true)
            #expect(try await Curl.run(origin.url("/api/two.txt"), proxy: proxy).header("cache-status")?.contains("stored") == true)
            let asset = try await Curl.run(origin.url("/games/flipart/assets/index-s5wVp7Ny.js"), proxy: proxy)
            #expect(asset.header("cache-status")?.hasSuffix("detail=precached") == true)
            try await origin.stop()
            let stale = try await Curl.run(origin.url("/api/two.txt"), proxy: proxy)
            #expect(stale.header("cache-status")?.contains("detail=upstream-unreachable") == true)
            #expect(try await Self.control(larder, "offline", form: ["offline": "on"], origin: proxy).status == 303)
            let offlineHit = try await Curl.run(origin.url("/api/one.json"), proxy: proxy)
            #expect(offlineHit.header("cache-status")?.hasPrefix("larder; hit") == true)
            let miss = try await Curl.run(origin.url("/never-seen.js"), proxy: proxy)
            #expect(miss.status == 504)

            let report = try await Self.json(proxy + "/dev/offline.json")
            #expect(report["offline"] as? Bool == true)
            let requests = report["requests"] as? [String: Any] ?? [:]
            #expect(requests["hits"] as? Int == 2)
            #expect(requests["misses"] as? Int == 3, "two fetched, one offline miss")
            #expect(requests["offlineMisses"] as? Int == 1)
            #expect(requests["stale"] as? Int == 1)
            #expect(requests["errors"] as? Int == 0)
            #expect((requests["hitRatio"] as? Double).map { abs($0 - 0.5) < 1e-9 } == true, "(2 hits + 1 stale) / 6")
            let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
            #expect(groups.count == 1)
            #expect(groups.first?["origin"] as? String == "http://127.0.0.1:\(origin.port)")
            #expect(groups.first?["game"] == nil, "/never-seen.js is under no game's root")
            let listed = (groups.first?["misses"] as? [[String: Any]])?.first
            #expect(listed?["url"] as? String == origin.url("/never-seen.js"))
            #expect(listed?["reason"] as? String == "offline")

            // Precached: 10 files the demo manifests list, holey's index.html, 3 pages, the 5 manifests
            // and the 4 metadata.json files (cached so a game can be listed offline; holey has none).
            // Runtime: the two /api answers.
            let precached = try DemoSite.listedFiles().count + 1 + 3 + 5 + 4
            #expect(precached == 23)
            let store = report["store"] as? [String: Any] ?? [:]
            #expect(store["precachedEntries"] as? Int == precached, "\(store)")
            #expect(store["runtimeEntries"] as? Int == 2)
            #expect(store["entries"] as? Int == precached + 2)
            #expect(store["maxSize"] as? Int == 4 << 20)
            let bytes = try #require(store["bytes"] as? Int)
            #expect((store["budgetUsed"] as? Double).map { abs($0 - Double(bytes) / Double(4 << 20)) < 1e-9 } == true)

            let games = report["games"] as? [[String: Any]] ?? []
            let readiness = Dictionary(uniqueKeysWithValues: games.map { ($0["slug"] as? String ?? "", $0["readiness"] as? String ?? "") })
            #expect(readiness == ["shell": "ready", "flipart": "ready", "wordbox": "ready", "retired": "skipped", "holey": "1 of 2"])
            #expect(games.filter { $0["ready"] as? Bool == true }.count == 3)
            let flipart = games.first { $0["slug"] as? String == "flipart" }
            #expect(flipart?["displayName"] as? String == "Flip Art")
            #expect(flipart?["filesListed"] as? Int == 4)
            #expect(flipart?["detail"] as? String == "/dev/offline/games/flipart")
            let holey = games.first { $0["slug"] as? String == "holey" }
            #expect(holey?["state"] as? String == "partial")
            #expect(holey?["filesMissing"] as? Int == 1)
            let missing = holey?["missing"] as? [[String: Any]] ?? []
            #expect(missing.count == 1)
            #expect((missing.first?["url"] as? String)?.hasSuffix("/games/holey/missing.js") == true)
            #expect((missing.first?["reason"] as? String)?.contains("404") == true)

            let pages = report["pages"] as? [[String: Any]] ?? []
            #expect(pages.count == 3)
            #expect(pages.allSatisfy { $0["state"] as? String == "cached" })

            let hosts = report["upstream"] as? [[String: Any]] ?? []
            #expect(hosts.count == 1)
            #expect(hosts.first?["host"] as? String == "127.0.0.1")
            #expect(hosts.first?["consecutiveFailures"] as? Int == 1)
            #expect(hosts.first?["state"] as? String == "failing")
            #expect(hosts.first?["lastError"] is String)

            let recent = report["recentRequests"] as? [[String: Any]] ?? []
            let newest = try #require(recent.first)
            #expect((newest["url"] as? String)?.hasSuffix("/never-seen.js") == true)
            #expect(newest["status"] as? Int == 504)
            #expect(newest["outcome"] as? String == "offline-miss")
            #expect(newest["cacheStatus"] as? String == "larder; fwd=uri-miss; detail=offline")
            #expect(recent.count == 7, "six proxied requests and the POST of the offline switch")

            let entries = report["entries"] as? [String: Any] ?? [:]
            #expect(entries["total"] as? Int == precached + 2)
            #expect((entries["entries"] as? [Any])?.count == precached + 2)

            let holeyPage = try await Self.json(proxy + "/dev/offline/games/holey.json")
            let files = holeyPage["files"] as? [[String: Any]] ?? []
            #expect(files.map { $0["state"] as? String } == ["cached", "failed"])
            #expect((files.last?["reason"] as? String)?.contains("404") == true)

            let search = try await Self.json(proxy + "/dev/offline/entries.json?q=api/one")
            #expect(search["total"] as? Int == 1)
            #expect(((search["entries"] as? [[String: Any]])?.first?["kind"] as? String) == "runtime")

            // The CLI reads the same store, and the running proxy's counters.
            let status = try await LarderCLI.run(["status", "--json", "--cache-dir", cache, "--proxy", proxy])
            #expect(status.exitCode == 0, "\(status.stderr)")
            let printed = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
            #expect((printed["store"] as? [String: Any])?["entries"] as? Int == precached + 2)
            #expect((printed["requests"] as? [String: Any])?["stale"] as? Int == 1)
            #expect(printed["offline"] as? Bool == true)
            let text = try await LarderCLI.run(["status", "--cache-dir", cache, "--proxy", proxy])
            #expect(text.stdout.contains("Games: 3 of 4 ready offline, 1 skipped"), "\(text.stdout)")
            #expect(text.stdout.contains("holey/missing.js: failed: answered HTTP 404"), "\(text.stdout)")
            #expect(text.stdout.contains("Pages: 3 of 3 cached"))
            #expect(text.stdout.contains("offline mode"))
            #expect(text.stdout.contains("2 hits, 3 misses (1 offline), 1 stale, 0 errors; hit ratio 50%"), "\(text.stdout)")

            let metrics = try await Curl.run(proxy + "/metrics", proxy: nil)
            #expect(metrics.text.contains("larder_requests_total{outcome=\"stale\"} 1\n"))
            #expect(metrics.text.contains("larder_requests_total{outcome=\"offline-miss\"} 1\n"))
            #expect(metrics.text.contains("larder_requests_total{outcome=\"error\"} 0\n"))
            #expect(metrics.text.contains("larder_offline_mode 1.0\n"))
            #expect(metrics.text.contains("larder_upstream_errors_total{kind=\"transport\"} 1\n"))
            await larder.tearDown()
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
    }

    /// Waits for the precache job `id` of `larder` to finish; its status JSON.
    private static func finishedJob(_ larder: LarderProcess, id: String) async throws -> [String: Any] {
        for _ in 0..<600 {
            let status = try await Self.json(larder.proxyURL + "/dev/offline/precache/" + id)
            if status["state"] as? String == "finished" { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw E2EError("precache job \(id) did not finish")
    }

    @Test(
        "origin stopped: uncached URLs are offline misses, newest first per origin and game; errors are JSON for JSON clients; add to precache cures one"
    )
    func offlineMisses() async throws {
        let app = try await TestOrigin.start()
        let api = try await TestOrigin.start()
        app.setRoute(
            "/games/app/offline.meta.json", .text(#"{"files": ["app/index.html", "app/main.js"]}"#, contentType: "application/json"))
        app.setRoute("/games/app/index.html", .text("<script src=main.js></script>", contentType: "text/html"))
        app.setRoute("/games/app/main.js", .text("import('./lazy-1.js')", contentType: "text/javascript"))
        app.setRoute("/games/app/lazy-1.js", .text("lazy", contentType: "text/javascript"))
        api.setRoute("/settings", .text("{}", contentType: "application/json"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = directory + "/games.txt"
        try "\(app.url("/games/app"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 0)
        let config = directory + "/larder.json"
        try #"{"statusOrigins": ["\#(app.baseURL)"]}"#.write(toFile: config, atomically: true, encoding: .utf8)

        let larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: cache)
        do {
            let proxy = larder.proxyURL
            let page = app.url("/games/app/index.html")
            #expect(try await Curl.run(page, proxy: proxy).status == 200)
            var report = try await Self.json(proxy + "/dev/offline.json")
            #expect((report["games"] as? [[String: Any]])?.first?["ready"] as? Bool == true)

            try await app.stop()
            try await api.stop()
            let unrelated = try await Curl.run(app.url("/unrelated.js"), proxy: proxy)
            #expect(unrelated.status == 502)
            #expect(unrelated.header("content-type") == "text/html; charset=utf-8", "curl's */* gets the HTML page")
            let settings = api.url("/settings?1795492696035")
            let call = try await Curl.run(
                settings, proxy: proxy, arguments: ["-H", "Accept: application/json, text/plain, */*", "-H", "Referer: \(page)"])
            #expect(call.status == 502)
            #expect(call.header("content-type") == "application/json")
            let error = try JSONSerialization.jsonObject(with: Data(call.body)) as? [String: Any] ?? [:]
            #expect(error["status"] as? Int == 502)
            #expect(error["url"] as? String == settings)
            #expect(error["title"] as? String == "Upstream unreachable")
            #expect((error["reason"] as? String)?.contains("There is no cached copy of it.") == true)
            #expect(error["cacheStatus"] as? String == call.header("cache-status"))
            let lazy = app.url("/games/app/lazy-1.js")
            #expect(try await Curl.run(lazy, proxy: proxy).status == 502)
            #expect(try await Curl.run(page, proxy: proxy).header("cache-status")?.hasPrefix("larder; hit") == true, "precached")

            report = try await Self.json(proxy + "/dev/offline.json")
            let requests = report["requests"] as? [String: Any] ?? [:]
            #expect(requests["offlineMisses"] as? Int == 3)
            #expect(requests["errors"] as? Int == 0)
            let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
            let summary = groups.map { group in
                "\(group["origin"] as? String ?? "") \(group["game"] as? String ?? "-"): "
                    + ((group["misses"] as? [[String: Any]]) ?? []).map { $0["url"] as? String ?? "" }.joined(separator: " ")
            }
            #expect(
                summary == [
                    "\(app.baseURL) app: \(lazy)", "\(api.baseURL) app: \(settings)", "\(app.baseURL) -: \(app.url("/unrelated.js"))",
                ], "newest first, per origin and game (the API call by its Referer)")
            let game = try #require((report["games"] as? [[String: Any]])?.first)
            #expect(game["ready"] as? Bool == false, "every listed file is cached, but the app missed two URLs offline")
            #expect(game["readiness"] as? String == "2 offline misses")
            let html = try await Curl.run(proxy + "/dev/offline", proxy: nil).text
            #expect(html.contains("Not ready: app (2 offline misses)."), "\(html.prefix(3000))")
            #expect(html.contains("<input type=\"hidden\" name=\"url\" value=\"\(lazy)\">"))

            // A page of an origin in statusOrigins may read the JSON; another site may not.
            let allowed = try await Curl.run(proxy + "/dev/offline.json", proxy: nil, arguments: ["-H", "Origin: \(app.baseURL)"])
            #expect(allowed.header("access-control-allow-origin") == app.baseURL)
            #expect(allowed.header("vary") == "Origin")
            let other = try await Curl.run(proxy + "/dev/offline.json", proxy: nil, arguments: ["-H", "Origin: https://evil.example"])
            #expect(other.header("access-control-allow-origin") == nil)

            // With the origin back, add to precache fetches the URL (with its game) at once.
            try await app.restart()
            let added = try await Self.control(larder, "add-to-precache", form: ["url": lazy, "game": "app"], origin: proxy)
            #expect(added.status == 303)
            let location = try #require(added.header("location"))
            let job = try #require(
                location.split(separator: "&").first { $0.contains("job=") }?.split(separator: "=").last.map(String.init))
            let finished = try await Self.finishedJob(larder, id: job)
            #expect((finished["report"] as? [String: Any])?["failed"] as? Int == 0, "\(finished)")
            app.resetRecords()
            let hit = try await Curl.run(lazy, proxy: proxy)
            #expect(hit.status == 200)
            #expect(hit.text == "lazy")
            #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true, "\(hit.header("cache-status") ?? "")")
            #expect(app.requestCount("/games/app/lazy-1.js") == 0, "answered from the cache")
            report = try await Self.json(proxy + "/dev/offline.json")
            let extra = (report["extraURLs"] as? [[String: Any]])?.first
            #expect(extra?["url"] as? String == lazy)
            #expect(extra?["game"] as? String == "app")
            #expect(extra?["state"] as? String == "cached")
            let left = ((report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []).flatMap {
                ($0["misses"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
            }
            #expect(left == [settings, app.url("/unrelated.js")], "the added URL is no longer a miss")
            _ = await larder.stop()

            // Later runs of the game precache it too.
            let again = try await LarderCLI.run(["precache", list, "--cache-dir", cache, "--json"])
            #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
            let printed = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any] ?? [:]
            #expect(printed["pagesListed"] as? Int == 1, "the extra URL is fetched with its game")
            try await app.stop()
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            try? await app.stop()
            throw error
        }
    }

    @Test("a hostile game name and a URL with markup are shown as text")
    func hostileNames() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/evil/offline.meta.json", .text(#"{"files": ["evil/a.js"]}"#, contentType: "application/json"))
        origin.setRoute("/evil/metadata.json", .text(#"{"displayName": "<script>alert(1)</script>"}"#, contentType: "application/json"))
        origin.setRoute("/evil/a.js", .text("console.log(1)", contentType: "text/javascript"))
        origin.setRoute("/x.js", .text("x", contentType: "text/javascript", headers: [("Cache-Control", "max-age=60")]))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "\(origin.url("/evil"))\n".write(toFile: directory + "/games.txt", atomically: true, encoding: .utf8)
        #expect(try await LarderCLI.run(["precache", directory + "/games.txt", "--cache-dir", directory + "/cache"]).exitCode == 0)

        let larder = try await LarderProcess(cacheDirectory: directory + "/cache")
        let stored = try await Curl.run(origin.url("/x.js?v=<b>bold</b>"), proxy: larder.proxyURL)
        #expect(stored.header("cache-status")?.contains("stored") == true)
        // The stored entry is listed once its commit is done, which a slow disk can put off a little.
        #expect(try await eventually { try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil).text.contains("/x.js?v=") })
        for page in ["/dev/offline", "/dev/offline/entries?q=bold", "/dev/offline/games/evil"] {
            let html = try await Curl.run(larder.proxyURL + page, proxy: nil)
            #expect(html.status == 200)
            #expect(!html.text.contains("<script>alert(1)"), "\(page)")
            #expect(!html.text.contains("<b>bold"), "\(page)")
        }
        let overview = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil).text
        #expect(overview.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(overview.contains("/x.js?v=&lt;b&gt;bold&lt;/b&gt;"))
        await larder.tearDown()
        try await origin.stop()
    }

    @Test("controls: refused from another origin or with no origin; from the page they purge, and their effect shows")
    func controls() async throws {
        let origin = try await Self.demoOrigin()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        try await Self.precacheDemo(origin: origin, directory: directory, cache: cache)
        let larder = try await LarderProcess(cacheDirectory: cache)
        let proxy = larder.proxyURL
        let asset = origin.url("/games/flipart/assets/index-s5wVp7Ny.js")

        let foreign = try await Self.control(larder, "purge-entry", form: ["url": asset], origin: "https://evil.example")
        #expect(foreign.status == 403)
        #expect(foreign.text.contains("https://evil.example may not change"))
        let anonymous = try await Self.control(larder, "purge-entry", form: ["url": asset], origin: nil)
        #expect(anonymous.status == 403, "curl sends neither Origin nor Referer")
        #expect(anonymous.text.contains("larder purge"))
        #expect(try await Curl.run(asset, proxy: proxy).header("cache-status")?.hasPrefix("larder; hit") == true, "still cached")

        let purged = try await Self.control(larder, "purge-entry", form: ["url": asset, "return": "/dev/offline"], origin: proxy)
        #expect(purged.status == 303)
        let location = try #require(purged.header("location"))
        #expect(location.hasPrefix("/dev/offline?flash=Purged%20"))
        let search = try await Self.json(proxy + "/dev/offline/entries.json?q=index-s5wVp7Ny")
        #expect(search["total"] as? Int == 0, "the entry is gone")
        var report = try await Self.json(proxy + "/dev/offline.json")
        var games = report["games"] as? [[String: Any]] ?? []
        var flipart = games.first { $0["slug"] as? String == "flipart" }
        #expect(flipart?["ready"] as? Bool == false)
        #expect(flipart?["readiness"] as? String == "3 of 4")
        let page = try await Curl.run(proxy + location, proxy: nil)
        #expect(page.text.contains("Purged http://127.0.0.1:\(origin.port)/games/flipart/assets/index-s5wVp7Ny.js."))
        #expect(page.text.contains("Not ready: Flip Art (3 of 4)"))
        // A flash in a link made elsewhere is not Larder's: it is not shown.
        let forged = try await Curl.run(proxy + "/dev/offline?flash=Your+account+is+locked", proxy: nil)
        #expect(forged.status == 200)
        #expect(!forged.text.contains("Your account is locked"))

        let game = try await Self.control(larder, "purge-game", form: ["game": "wordbox"], origin: "http://localhost:\(larder.port)")
        #expect(game.status == 303)
        report = try await Self.json(proxy + "/dev/offline.json")
        games = report["games"] as? [[String: Any]] ?? []
        let wordbox = games.first { $0["slug"] as? String == "wordbox" }
        #expect(wordbox?["ready"] as? Bool == false)
        #expect(wordbox?["readiness"] as? String == "failed")
        #expect(wordbox?["lastError"] as? String == "purged")
        flipart = games.first { $0["slug"] as? String == "flipart" }
        #expect(flipart?["readiness"] as? String == "3 of 4")

        #expect(try await Self.control(larder, "offline", form: ["offline": "on"], origin: proxy).status == 303)
        origin.resetRecords()
        let started = ContinuousClock.now
        let miss = try await Curl.run(origin.url("/games/wordbox/assets/index-d48Bb7Ox.js"), proxy: proxy)
        #expect(miss.status == 504)
        #expect(miss.header("cache-status")?.contains("detail=offline") == true)
        // Far below any network timeout, even on a busy machine.
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(origin.requests().isEmpty, "offline mode does not contact the origin")
        let overview = try await Curl.run(proxy + "/dev/offline", proxy: nil)
        #expect(overview.text.contains("<span class=\"pill offline\">Offline mode</span>"))

        // The CLI purges too, and says what it did.
        let cli = try await LarderCLI.run(["purge", "--cache-dir", cache, origin.url("/about.html"), origin.url("/nothing-here.txt")])
        #expect(cli.exitCode == 1, "one URL was not cached")
        #expect(cli.stdout.contains("Removed \(origin.url("/about.html"))"))
        #expect(cli.stderr.contains("Not cached: \(origin.url("/nothing-here.txt"))"))
        report = try await Self.json(proxy + "/dev/offline.json")
        let pages = report["pages"] as? [[String: Any]] ?? []
        let about = pages.first { ($0["url"] as? String)?.hasSuffix("/about.html") == true }
        #expect(about?["state"] as? String == "missing", "a purged page is not shown as cached")
        let usage = try await LarderCLI.run(["purge", "--cache-dir", cache, "--runtime", "--all"])
        #expect(usage.exitCode == 2)
        #expect(usage.stderr.contains("only one of"))
        let all = try await LarderCLI.run(["purge", "--cache-dir", cache, "--all"])
        #expect(all.exitCode == 0)
        #expect(all.stdout.contains("Removed everything from"))
        #expect(all.stdout.contains("5 game records, 3 page records"))
        report = try await Self.json(proxy + "/dev/offline.json")
        #expect((report["store"] as? [String: Any])?["entries"] as? Int == 0)
        #expect((report["games"] as? [Any])?.isEmpty == true)
        await larder.tearDown()
        try await origin.stop()
    }

    @Test(
        "headless Chromium loads the demo through the proxy, again from the cache with the origin gone, and screenshots /dev/offline",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func browser() async throws {
        let origin = try await Self.demoOrigin()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let larder = try await LarderProcess(cacheDirectory: directory + "/cache")
        do {
            // Browsing keeps what the page loads as runtime entries.
            let page = origin.url("/index.html")
            let online = try await Chromium.run(page, proxy: larder.proxyURL, arguments: ["--dump-dom"])
            #expect(
                online.stdout.contains("app.js ran"),
                "app.js did not run online:\n\(online.stdout.prefix(2000))\n\(online.stderr.suffix(2000))")
            #expect(origin.requestCount("/style.css") == 1, "the browser fetched the CSS through the proxy")
            #expect(origin.requestCount("/app.js") == 1)

            // With the origin gone, a new browser (empty browser cache) gets the page from Larder.
            try await origin.stop()
            let offline = try await Chromium.run(page, proxy: larder.proxyURL, arguments: ["--dump-dom"])
            #expect(
                offline.stdout.contains("<p id=\"status\" class=\"status ran\">app.js ran</p>"),
                "app.js did not run from the cache:\n\(offline.stdout.prefix(2000))")
            #expect(offline.stdout.contains("Larder demo site"))
            let report = try await Self.json(larder.proxyURL + "/dev/offline.json")
            let recent = report["recentRequests"] as? [[String: Any]] ?? []
            for asset in ["/style.css", "/app.js", "/index.html"] {
                let answer = recent.first { ($0["url"] as? String)?.hasSuffix(asset) == true }
                #expect(answer?["status"] as? Int == 200, "\(asset) was answered from the cache with the origin gone")
                #expect(["hit", "stale"].contains(answer?["outcome"] as? String ?? ""), "\(asset): \(answer ?? [:])")
            }
            let output = Chromium.outputDirectory
            _ = try await Chromium.run(
                page, proxy: larder.proxyURL, arguments: ["--screenshot=\(output)/demo-from-cache.png", "--window-size=390,800"])

            // Then the games are precached beside the running proxy, and /dev/offline is pictured.
            try await origin.restart()
            try await Self.precacheDemo(origin: origin, directory: directory, cache: larder.cacheDirectory)
            for (name, size) in [("devoffline-phone.png", "390,1200"), ("devoffline-desktop.png", "1280,1000")] {
                let path = output + "/" + name
                try? FileManager.default.removeItem(atPath: path)
                let shot = try await Chromium.run(
                    larder.proxyURL + "/dev/offline", proxy: larder.proxyURL, arguments: ["--screenshot=\(path)", "--window-size=\(size)"])
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name) is a PNG (chromium: \(shot.stderr.suffix(500)))")
                #expect(data.count > 10_000, "\(name) has content")
            }
            await larder.tearDown()
            try await origin.stop()
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            try? await origin.stop()
            throw error
        }
    }
}
