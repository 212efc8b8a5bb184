import Foundation
import LarderTestSupport
import Testing

/// /dev/offline leads to the fix, and health checks stay honest, through a real `larder serve`
/// (docs/SERVING.md, "The browser's own requests", "Offline misses", "Health checks").
@Suite("End to end: triage on /dev/offline and honest health checks")
struct TriageTests {
    private static func report(_ larder: LarderProcess) async throws -> [String: Any] {
        let response = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        #expect(response.status == 200)
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// Every offline miss of the app's in the report, of every group.
    private static func appMisses(_ report: [String: Any]) -> [[String: Any]] {
        let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return groups.flatMap { $0["misses"] as? [[String: Any]] ?? [] }
    }

    @Test(
        "the browser's updater (POSTs with a new cup2key, no Fetch Metadata) is one row of the browser's own, never the app's nor on the badge; the app's misses under cache-busters are one row"
    )
    func updaterApart() async throws {
        let app = try await TestOrigin.start()
        // A parent proxy that refuses every connection: the updater's host cannot be reached, and
        // nothing leaves the machine. The app's origin goes direct (no_proxy).
        let parent = try await TestOrigin.start()
        try await parent.stop()
        try await app.stop()
        let larder = try await LarderProcess(environment: ["http_proxy": parent.baseURL, "no_proxy": "127.0.0.1,localhost"])
        do {
            let page = app.url("/")
            let fetch = ["-H", "Sec-Fetch-Site: same-origin", "-H", "Sec-Fetch-Mode: cors", "-H", "Referer: \(page)"]
            for stamp in ["1795492696035", "1795492697035", "1795492698035"] {
                let missed = try await Curl.run(app.url("/api/feed?_=\(stamp)"), proxy: larder.proxyURL, arguments: fetch)
                #expect(missed.status == 502)
            }
            for nonce in ["13:2734987", "13:9911223", "13:5550001"] {
                let update = "http://update.googleapis.com/service/update2/json?cup2key=\(nonce)&cup2hreq=0f3a"
                let sent = try await Curl.run(
                    update, proxy: larder.proxyURL, arguments: ["-X", "POST", "--data", "{}", "-H", "Content-Type: application/json"])
                #expect(sent.status == 502)
            }

            let report = try await Self.report(larder)
            let rows = Self.appMisses(report)
            #expect(rows.count == 1, "one row for the feed, none for the updater")
            #expect(rows.first?["endpoint"] as? String == app.url("/api/feed"))
            #expect(rows.first?["count"] as? Int == 3)
            let browser = (report["offlineMisses"] as? [String: Any])?["browserMisses"] as? [[String: Any]] ?? []
            #expect(browser.count == 1)
            #expect(browser.first?["count"] as? Int == 3)
            #expect(browser.first?["endpoint"] as? String == "http://update.googleapis.com/service/update2/json")
            let connectivity = report["connectivity"] as? [String: Any] ?? [:]
            #expect(connectivity["unreachableOrigins"] as? [String] == [app.baseURL])

            let html = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil).text
            let appSection = html.components(separatedBy: "The browser's own requests").first ?? ""
            #expect(!appSection.contains("update.googleapis.com"))
            #expect(!html.contains("actions/answer-offline"), "no Answer offline button for the updater")

            // The app comes back: the badge says Online, though the updater's host still cannot be reached.
            try await app.restart()
            #expect(
                await eventually(within: 10) {
                    _ = try? await Curl.run(app.url("/"), proxy: larder.proxyURL, arguments: fetch)
                    let state = (try? await Self.report(larder))?["connectivity"] as? [String: Any]
                    return state?["state"] as? String == "online"
                })
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
        try? await app.stop()
    }

    @Test("a health check is not answered from the cache while its origin is down, where another path is; online both are answered")
    func healthCheckHonest() async throws {
        let app = try await TestOrigin.start()
        for path in ["/api/healthz", "/api/settings"] {
            app.setRoute(path, .text(#"{"ok":true}"#, contentType: "application/json", headers: [("Cache-Control", "no-cache")]))
        }
        try await withLarder { larder in
            for path in ["/api/healthz", "/api/settings"] {
                let online = try await Curl.run(app.url(path), proxy: larder.proxyURL)
                #expect(online.status == 200)
                #expect(online.header("cache-status")?.contains("health-check") == false)
            }
            try await app.stop()
            let settings = try await Curl.run(app.url("/api/settings"), proxy: larder.proxyURL)
            #expect(settings.status == 200)
            #expect(settings.header("cache-status")?.contains("relaxed-no-cache") == true)
            let health = try await Curl.run(app.url("/api/healthz"), proxy: larder.proxyURL)
            #expect(health.status == 502)
            #expect(health.header("cache-status")?.contains("+health-check") == true)
            #expect(health.text.contains("This is a health check"))
            let row = Self.appMisses(try await Self.report(larder)).first { $0["url"] as? String == app.url("/api/healthz") }
            #expect((row?["note"] as? String)?.contains("This is a health check") == true)
        }
    }

    @Test(
        "a declared answer withheld from a page not in its pageOrigins says so: +declared-withheld, the page and the row name the declared request and pageOrigins"
    )
    func declaredWithheld() async throws {
        let api = try await TestOrigin.start()
        api.setRoute("/api/today", .text(#"{"today":"puzzle"}"#, contentType: "application/json"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"""
        {
          "requests": [
            {
              "name": "today",
              "url": "\#(api.url("/api/today"))",
              "headers": { "Authorization": "Bearer {{env:TODAY_TOKEN}}" },
              "body": { "day": "monday" },
              "bodyKey": "json",
              "pageOrigins": ["http://listed.example"]
            }
          ]
        }
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(serve: ["--config", config], environment: ["TODAY_TOKEN": "secret"])
        do {
            #expect(try await eventually { try await DeclaredRequestTests.declared(larder).first?["state"] as? String == "fresh" })
            try await api.stop()
            let page = "http://www.unlisted.example"
            let sent = try await Curl.run(
                api.url("/api/today"), proxy: larder.proxyURL,
                arguments: [
                    "-X", "POST", "--data", #"{"day": "monday"}"#, "-H", "Content-Type: application/json", "-H", "Origin: \(page)", "-H",
                    "Referer: \(page)/today",
                ])
            #expect(sent.status == 502)
            #expect(sent.header("cache-status")?.contains("detail=upstream-unreachable+declared-withheld") == true)
            #expect(sent.text.contains("The declared request &quot;today&quot; has a stored answer for this request, but it was withheld"))
            #expect(sent.text.contains("pageOrigins"))
            #expect(!sent.text.contains("puzzle"))
            let row = Self.appMisses(try await Self.report(larder)).first { $0["url"] as? String == api.url("/api/today") }
            #expect(row?["declaredRequest"] as? String == "today")
            let note = row?["note"] as? String ?? ""
            #expect(note.contains(#"add "\#(page)" to that request's pageOrigins in the config file"#), "\(note)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test(
        "a keyed read with answers stored for its URL but none near its body: the miss says +body-not-near, and its row says why in words")
    func bodyNotNear() async throws {
        let app = try await TestOrigin.start()
        app.setRoute("/api/chart", .text(#"{"points":[3,1,4]}"#, contentType: "application/json"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"routes": [{"match": "\#(app.url("/api/chart"))", "cacheMethods": ["POST"], "bodyKey": "exact"}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        try await withLarder(["--config", config]) { larder in
            let post = { (body: String) in
                try await Curl.run(
                    app.url("/api/chart"), proxy: larder.proxyURL,
                    arguments: ["-X", "POST", "--data", body, "-H", "Content-Type: application/json", "-H", "Referer: \(app.url("/"))"])
            }
            #expect(try await post(#"{"series":"cpu"}"#).status == 200)
            try await app.stop()
            let missed = try await post(#"{"series":"memory"}"#)
            #expect(missed.status == 502)
            #expect(missed.header("cache-status")?.contains("+body-not-near") == true, "\(missed.headers)")
            let row = Self.appMisses(try await Self.report(larder)).first { $0["url"] as? String == app.url("/api/chart") }
            #expect((row?["causes"] as? [String]) == ["body-not-near"])
            #expect(
                (row?["note"] as? String)?.contains(
                    "Larder keeps answers for this URL, but none for a request like this one: its body differs in more than times, counters or a form boundary."
                ) == true, "\(row ?? [:])")
        }
    }
}
