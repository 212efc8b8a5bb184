import Foundation
import LarderTestSupport
import Testing

/// Issue 42's app (Tests/Fixtures/reads) in headless Chromium and a WebKitGTK webview, each with
/// a profile kept between loads as a user's browser keeps it: reads whose bodies change every
/// time, and a `no-store` admin page behind a login cookie, each work offline after at most one
/// click on /dev/offline and one online visit; the browser's own traffic (an updater's POSTs)
/// never shows among the app's misses nor on the badge.
@Suite("End to end: an app whose reads change every time, in a browser", .serialized)
struct ChangingReadsTests {
    private func part(_ report: [String: Any], _ name: String) -> [String: Any] {
        report[name] as? [String: Any] ?? [:]
    }

    private func devOffline(_ larder: LarderProcess) async throws -> [String: Any] {
        let result = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        return try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any] ?? [:]
    }

    /// The app's offline misses on /dev/offline.json.
    private func appMisses(_ larder: LarderProcess) async throws -> [[String: Any]] {
        let groups = (try await self.devOffline(larder)["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return groups.flatMap { $0["misses"] as? [[String: Any]] ?? [] }
    }

    /// The URLs among the app's offline misses on /dev/offline.json.
    private func appMissURLs(_ report: [String: Any]) -> [String] {
        let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return groups.flatMap { ($0["misses"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } }
    }

    /// Chromium's updater, as it posts while the network is down: a new `cup2key` each time, no
    /// Fetch Metadata, no `Referer` (it is the browser's own request, not a page's).
    private func updaterPost(_ larder: LarderProcess, _ round: Int) async throws -> CurlResult {
        try await Curl.run(
            "http://update.googleapis.com/service/update2/json?cup2key=14:\(1_000_000 + round)&cup2hreq=\(round)",
            proxy: larder.proxyURL,
            arguments: [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Goog-Update-Interactivity: bg", "--max-time", "20",
                "--data-binary", #"{"request":{"@os":"linux","acceptformat":"crx3"}}"#,
            ])
    }

    @Test(
        "Chromium: a JSON read with the clock and a multipart read work offline after Answer offline and one online visit; the updater stays off the app's misses and the badge",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func readsInChromium() async throws {
        try await self.reads(in: .chromium)
    }

    @Test(
        "WebKitGTK: a JSON read with the clock and a multipart read work offline after Answer offline and one online visit; the updater stays off the app's misses and the badge",
        .enabled(if: WebKit.isInstalled, "needs a WebKitGTK webview; scripts/setup installs it (gir1.2-webkit2-4.1, python3-gi, xvfb)")
    )
    func readsInWebKit() async throws {
        try await self.reads(in: .webKit)
    }

    @Test(
        "Chromium: a no-store admin page behind a login cookie works offline after Keep this site's pages and one online visit",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func adminPageInChromium() async throws {
        try await self.adminPage(in: .chromium)
    }

    @Test(
        "WebKitGTK: a no-store admin page behind a login cookie works offline after Keep this site's pages and one online visit",
        .enabled(if: WebKit.isInstalled, "needs a WebKitGTK webview; scripts/setup installs it (gir1.2-webkit2-4.1, python3-gi, xvfb)")
    )
    func adminPageInWebKit() async throws {
        try await self.adminPage(in: .webKit)
    }

    private func adminPage(in browser: Browser) async throws {
        let app = try await ChangingReadsApp.start()
        defer { Task { try? await app.origin.stop() } }
        let profile = LarderProcess.temporaryDirectory("profile")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let larder = try await LarderProcess()
        do {
            let signedIn = try await browser.report(app.url("/login"), proxy: larder.proxyURL, profile: profile)
            #expect(signedIn["signedIn"] as? Bool == true, "\(signedIn)")
            let online = try await browser.report(app.url("/admin"), proxy: larder.proxyURL, profile: profile)
            #expect(online["admin"] as? String == "Admin: ada (answer 1)", "the cookie came back from the profile: \(online)")

            // Offline before the click: the miss's note says the site asked that its pages never be
            // kept, and how to keep them (curl with the browser's cookie: a browser would wait on the error page).
            try await app.origin.stop()
            let missed = try await Curl.run(
                app.url("/admin"), proxy: larder.proxyURL, arguments: ["-H", "Cookie: session=\(ChangingReadsApp.session)"])
            #expect(missed.status == 502, "\(missed.headers)")
            let misses = try await self.appMisses(larder)
            let adminMiss = misses.first { ($0["url"] as? String) == app.url("/admin") } ?? [:]
            #expect((adminMiss["note"] as? String)?.contains("marks its pages no-store") == true, "\(adminMiss)")
            try await app.origin.restart()

            // /dev/offline names the site that sent no-store; one click keeps its pages.
            let section = try await self.devOffline(larder)["keptNoStore"] as? [String: Any] ?? [:]
            let site = URL(string: app.url("/"))!.absoluteString.dropLast()
            let candidates = (section["candidates"] as? [[String: Any]] ?? []).compactMap { $0["origin"] as? String }
            #expect(candidates == [String(site)], "\(section)")
            let pressed = try await AnswerOfflineTests.press("keep-no-store", ["origin=\(site)"], larder: larder)
            #expect(pressed.status == 303, "\(pressed.status) \(pressed.text)")

            // One online visit (the origin's answer, kept for this user), then offline.
            let visit = try await browser.report(app.url("/admin"), proxy: larder.proxyURL, profile: profile)
            #expect(visit["admin"] as? String == "Admin: ada (answer 2)", "\(visit)")
            try await app.origin.stop()
            let offline = try await browser.report(app.url("/admin"), proxy: larder.proxyURL, profile: profile, timeout: .seconds(30))
            #expect(offline["admin"] as? String == "Admin: ada (answer 2)", "the kept page offline: \(offline)")
            let fixed = try await self.appMisses(larder).first { ($0["url"] as? String) == app.url("/admin") } ?? [:]
            #expect(
                (fixed["note"] as? String)?.contains("Keep this site's pages for offline use was chosen") == true
                    && (fixed["note"] as? String)?.contains("it has not missed since") == true, "\(fixed)")

            // Online again, the origin answers, never the kept copy.
            try await app.origin.restart()
            let again = try await browser.report(app.url("/admin"), proxy: larder.proxyURL, profile: profile)
            #expect(again["admin"] as? String == "Admin: ada (answer 3)", "\(again)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    private func reads(in browser: Browser) async throws {
        let app = try await ChangingReadsApp.start()
        defer { Task { try? await app.origin.stop() } }
        let profile = LarderProcess.temporaryDirectory("profile")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let larder = try await LarderProcess()
        do {
            let online = try await browser.report(app.url("/"), proxy: larder.proxyURL, profile: profile)
            #expect(self.part(online, "metrics")["status"] as? Int == 200, "\(online)")
            #expect(self.part(online, "chart")["status"] as? Int == 200, "\(online)")

            // Offline before any click: both reads miss, and say so on /dev/offline.
            try await app.origin.stop()
            let missed = try await browser.report(app.url("/"), proxy: larder.proxyURL, profile: profile)
            #expect(self.part(missed, "metrics")["status"] as? Int == 502, "\(missed)")
            #expect(self.part(missed, "chart")["status"] as? Int == 502, "\(missed)")
            var updaterFailed = false
            for round in 0..<3 {
                updaterFailed = try await self.updaterPost(larder, round).status >= 500
            }
            let triage = try await self.devOffline(larder)
            let appMisses = self.appMissURLs(triage)
            #expect(appMisses.contains(app.url("/api/metrics")), "\(appMisses)")
            #expect(appMisses.contains(app.url("/api/chart")), "\(appMisses)")
            #expect(!appMisses.contains { $0.contains("googleapis") }, "the updater is not the app's: \(appMisses)")
            if updaterFailed {
                let browserMisses = (triage["offlineMisses"] as? [String: Any])?["browserMisses"] as? [[String: Any]] ?? []
                #expect(browserMisses.contains { ($0["url"] as? String)?.contains("update.googleapis.com") == true }, "\(browserMisses)")
            }

            // One click for each read, one online visit.
            for path in ["/api/metrics", "/api/chart"] {
                let pressed = try await AnswerOfflineTests.press("answer-offline", ["url=\(app.url(path))", "method=POST"], larder: larder)
                #expect(pressed.status == 303, "\(path): \(pressed.status) \(pressed.text)")
            }
            try await app.origin.restart()
            let visit = try await browser.report(app.url("/"), proxy: larder.proxyURL, profile: profile)
            #expect(self.part(visit, "metrics")["status"] as? Int == 200, "\(visit)")
            let answers = (metrics: app.count("metrics"), chart: app.count("chart"))
            let connectivity = try await self.devOffline(larder)["connectivity"] as? [String: Any] ?? [:]
            #expect(connectivity["state"] as? String == "online", "the updater's host never drives the badge: \(connectivity)")
            #expect(
                !((connectivity["unreachableOrigins"] as? [String]) ?? []).contains { $0.contains("googleapis") }, "\(connectivity)")

            // Offline: each read gets the answer stored on the visit, though its body is new.
            try await app.origin.stop()
            let offline = try await browser.report(app.url("/"), proxy: larder.proxyURL, profile: profile)
            let metrics = self.part(offline, "metrics")
            #expect(metrics["status"] as? Int == 200, "\(offline)")
            #expect(metrics["body"] as? String == #"{"series":"cpu","answer":\#(answers.metrics)}"#, "\(metrics)")
            #expect((metrics["cacheStatus"] as? String)?.contains("stand-in-body") == true, "\(metrics)")
            #expect((metrics["cacheStatus"] as? String)?.contains("end_time_ms") == true, "\(metrics)")
            let chart = self.part(offline, "chart")
            #expect(chart["status"] as? Int == 200, "\(offline)")
            #expect(chart["body"] as? String == #"{"points":[3,1,4],"answer":\#(answers.chart)}"#, "\(chart)")
            #expect((chart["cacheStatus"] as? String)?.contains("stand-in-body") == true, "\(chart)")
            #expect(offline["consoleErrors"] as? [Any] == nil || (offline["consoleErrors"] as? [Any])?.isEmpty == true, "\(offline)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }
}
