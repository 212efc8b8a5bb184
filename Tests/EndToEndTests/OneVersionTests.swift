import Foundation
import LarderTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A precached game is one complete version offline, whatever a browser fetched meanwhile
/// (docs/SERVING.md, "One version of a game"): the update cut short by the network while a
/// browser loads the new deploy leaves the previous version playable in a fresh profile.
@Suite("End to end: one version of a game offline", .serialized)
struct OneVersionTests {
    /// Deploys version `version` of game `g`: a page that names its own script and reports which
    /// page and which script it got (after at most 3 s, whatever the script did).
    static func deploy(_ version: Int, on origin: TestOrigin, script: TestResponse? = nil) {
        origin.setRoute(
            "/g/offline.meta.json",
            .text(#"{"files": ["g/index.html", "g/app-v\#(version).js"]}"#, contentType: "application/json"))
        origin.setRoute(
            "/g/index.html",
            .text(
                """
                <!doctype html><title>g v\(version)</title>
                <script>
                function finish(loaded) {
                  if (window.__report) return;
                  window.__report = { page: \(version), game: window.gameVersion || null, loaded: loaded, done: true };
                }
                setTimeout(() => finish(false), 3000);
                </script>
                <script src="app-v\(version).js" onload="finish(true)" onerror="finish(false)"></script>
                """, contentType: "text/html"))
        origin.setRoute(
            "/g/app-v\(version).js", script ?? .text("window.gameVersion = \(version);", contentType: "text/javascript"))
    }

    @Test(
        "Chromium: an update cut short while the browser loads the new deploy leaves the complete version playable offline; a complete update switches",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func updateCutShortInChromium() async throws {
        try await self.updateCutShort(in: .chromium)
    }

    @Test(
        "WebKitGTK: an update cut short while the browser loads the new deploy leaves the complete version playable offline; a complete update switches",
        .enabled(if: WebKit.isInstalled, "needs a WebKitGTK webview; scripts/setup installs it (gir1.2-webkit2-4.1, python3-gi, xvfb)")
    )
    func updateCutShortInWebKit() async throws {
        try await self.updateCutShort(in: .webKit)
    }

    private func updateCutShort(in browser: Browser) async throws {
        let origin = try await TestOrigin.start()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = directory + "/games.txt"
        try "\(origin.url("/g"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let page = origin.url("/g/index.html")

        Self.deploy(1, on: origin)
        let larder = try await LarderProcess(serve: [], cacheDirectory: cache)
        do {
            let first = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
            #expect(first.exitCode == 0, "\(first.stdout)\(first.stderr)")
            let before = try await browser.report(page, proxy: larder.proxyURL)
            #expect(before["page"] as? Int == 1 && before["game"] as? Int == 1, "online, version 1: \(before)")

            // Version 2 is deployed; its script never arrives, for the precache run or the browser.
            Self.deploy(
                2, on: origin, script: .text("window.gameVersion = 2;", contentType: "text/javascript", faults: [.delayHead(.seconds(60))]))
            let update = ChildProcess()
            update.executableURL = URL(fileURLWithPath: LarderProcess.binary)
            update.arguments = ["precache", list, "--cache-dir", cache]
            let output = Pipe()
            update.standardOutput = output
            update.standardError = FileHandle.nullDevice
            try update.run()
            #expect(await eventually { origin.requestCount("/g/app-v2.js") >= 1 }, "the update waits for the new script")
            // Meanwhile the browser shows the new deploy at once (network-first), though its
            // script hangs.
            let during = try await browser.report(page, proxy: larder.proxyURL)
            #expect(during["page"] as? Int == 2, "online, the new page: \(during)")
            let fetched = try await Curl.run(page, proxy: larder.proxyURL)
            #expect(fetched.text.contains("g v2"))
            #expect(fetched.header("cache-status")?.contains("detail=not-stored-complete-version") == true, "\(fetched.headers)")
            try await Task.sleep(for: .milliseconds(500))

            // The network goes: the update fails, the previous version stays.
            try await origin.stop()
            await onThread { update.waitUntilExit() }
            let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(update.terminationStatus == 1, "\(summary)")
            #expect(summary.contains("not updated"), "\(summary)")

            let offline = try await browser.report(page, proxy: larder.proxyURL)
            #expect(offline["page"] as? Int == 1, "offline, a fresh profile gets the complete version's page: \(offline)")
            #expect(offline["game"] as? Int == 1 && offline["loaded"] as? Bool == true, "and its script: \(offline)")
            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
            let game = (json?["games"] as? [[String: Any]] ?? []).first { $0["slug"] as? String == "g" }
            // The previous version is recorded whole; the browser's failed request for the new
            // script stays listed as an offline miss of the game (it happened), which is why
            // /dev/offline asks for a look rather than saying "ready".
            #expect(game?["state"] as? String == "ready" && game?["filesMissing"] as? Int == 0, "\(game ?? [:])")
            // (Chromium also asks for /favicon.ico now and then, from the page.)
            let misses = (game?["offlineMisses"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
            #expect(misses.filter { !$0.hasSuffix("/favicon.ico") } == [origin.url("/g/app-v2.js")], "\(game ?? [:])")

            // A complete update switches: offline now serves version 2, whole.
            try await origin.restart()
            Self.deploy(2, on: origin)
            let complete = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
            #expect(complete.exitCode == 0, "\(complete.stdout)\(complete.stderr)")
            try await origin.stop()
            let switched = try await browser.report(page, proxy: larder.proxyURL)
            #expect(switched["page"] as? Int == 2 && switched["game"] as? Int == 2, "offline, version 2: \(switched)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            try? await origin.stop()
            throw error
        }
        await larder.tearDown()
    }
}
