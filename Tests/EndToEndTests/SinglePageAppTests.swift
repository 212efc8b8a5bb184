import Foundation
import LarderTestSupport
import Testing

/// The fixture app (Tests/Fixtures/spa) in headless Chromium and in a WebKitGTK webview through
/// `larder serve` on its defaults: what issue 15 found broken in a real app. Both browsers run
/// the same steps (`lifecycle(in:)`).
@Suite("End to end: a single-page app in a browser on Larder's defaults")
struct SinglePageAppTests {
    /// A report's step as an object.
    private func part(_ report: [String: Any], _ name: String) -> [String: Any] {
        report[name] as? [String: Any] ?? [:]
    }

    private func expectRendered(_ report: [String: Any], deploy: String, _ when: String) {
        #expect(report["timedOut"] == nil, "\(when): the app never finished: \(report)")
        #expect(report["deploy"] as? String == deploy, "\(when): \(report)")
        #expect(report["theme"] as? String == "applied", "\(when): the no-cache theme: \(report)")
        #expect(report["chunk"] as? String == "loaded", "\(when): the lazy chunk: \(report)")
        #expect(self.part(report, "settings")["status"] as? Int == 200, "\(when): /api/settings?<now>: \(report)")
        #expect(self.part(report, "feed")["status"] as? Int == 200, "\(when): the second origin's feed: \(report)")
        #expect(report["rendered"] as? String == "Hello ada, theme dark (deploy \(deploy))", "\(when): \(report)")
        #expect((report["consoleErrors"] as? [Any])?.isEmpty == true, "\(when): \(report)")
    }

    @Test(
        "Chromium: online, origin hung, new deploy, the page precached (cookies and deploys still reach the browser), then origin stopped and a fresh profile offline",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func lifecycleInChromium() async throws {
        try await self.lifecycle(in: .chromium)
    }

    @Test(
        "WebKitGTK: online, origin hung, new deploy, the page precached (cookies and deploys still reach the browser), then origin stopped and a fresh profile offline",
        .enabled(if: WebKit.isInstalled, "needs a WebKitGTK webview; scripts/setup installs it (gir1.2-webkit2-4.1, python3-gi, xvfb)")
    )
    func lifecycleInWebKit() async throws {
        try await self.lifecycle(in: .webKit)
    }

    private func lifecycle(in browser: Browser) async throws {
        let app = try await SinglePageApp.start()
        defer { Task { await app.tearDown() } }
        let larder = try await LarderProcess(serve: [])
        do {
            // Online: everything works, the WebSocket included (ws:// on a port that is not 443).
            let online = try await browser.report(app.pageURL, proxy: larder.proxyURL)
            self.expectRendered(online, deploy: "v1", "online")
            #expect(online["xsrfCookie"] as? Bool == true, "\(online)")
            #expect(self.part(online, "save")["status"] as? Int == 200, "the XSRF-checked POST: \(online)")
            // WebKitGTK (libsoup 3) sends a ws:// handshake to an HTTP proxy as `GET ws://host:port/path`
            // where Chromium sends `GET http://host:port/path`; Larder takes both.
            #expect(online["websocket"] as? String == "echo: ping", "\(online)")
            #expect(self.part(online, "settings")["offline"] is NSNull, "\(online)")

            // Hung: the origins accept connections and never answer. The page arrives from the
            // cache at the network timeout (3 s), not after the 30 s stall timeout.
            try app.deploy("v1", hangFor: .seconds(120))
            let started = ContinuousClock.now
            let page = try await Curl.run(app.pageURL, proxy: larder.proxyURL)
            let waited = ContinuousClock.now - started
            #expect(page.status == 200)
            #expect(page.header("cache-status")?.contains("detail=network-timeout") == true, "\(page.headers)")
            #expect(page.header("larder-offline") == "1")
            #expect(waited < .seconds(20), "the page waited \(waited) for a hung origin")
            let hung = try await browser.report(app.pageURL, proxy: larder.proxyURL, timeout: .seconds(90))
            self.expectRendered(hung, deploy: "v1", "origin hung")

            // A new deploy reaches a browser at once while the origin answers.
            try app.deploy("v2")
            let deployed = try await browser.report(app.pageURL, proxy: larder.proxyURL)
            self.expectRendered(deployed, deploy: "v2", "new deploy")
            #expect(self.part(deployed, "save")["status"] as? Int == 200, "\(deployed)")

            // The page precached (`page URL` in games.txt): while the origin answers it still comes
            // from the origin, with its cookie, and the next deploy shows at once.
            let list = larder.cacheDirectory + "-games.txt"
            defer { try? FileManager.default.removeItem(atPath: list) }
            try "page \(app.pageURL)\n".write(toFile: list, atomically: true, encoding: .utf8)
            let precache = try await LarderCLI.run(["precache", list, "--cache-dir", larder.cacheDirectory], timeout: .seconds(60))
            #expect(precache.exitCode == 0, "\(precache.stdout)\(precache.stderr)")
            let precached = try await browser.report(app.pageURL, proxy: larder.proxyURL)
            self.expectRendered(precached, deploy: "v2", "page precached")
            #expect(precached["xsrfCookie"] as? Bool == true, "the origin's Set-Cookie reached the browser: \(precached)")
            #expect(self.part(precached, "save")["status"] as? Int == 200, "\(precached)")
            try app.deploy("v3")
            let redeployed = try await browser.report(app.pageURL, proxy: larder.proxyURL)
            self.expectRendered(redeployed, deploy: "v3", "a deploy after precaching")

            // The origins stop: a fresh browser profile still gets the whole app from the cache.
            try await app.stop()
            let offline = try await browser.report(app.pageURL, proxy: larder.proxyURL)
            self.expectRendered(offline, deploy: "v3", "origin stopped")
            #expect(self.part(offline, "settings")["offline"] as? String == "1", "Larder-Offline on the stand-in: \(offline)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }
}
