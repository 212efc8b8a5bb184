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
