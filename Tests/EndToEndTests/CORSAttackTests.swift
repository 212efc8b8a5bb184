import Foundation
import LarderTestSupport
import Synchronization
import Testing

/// A page of another site tries, in headless Chromium, to read or write through Larder's answers
/// in the origin's place what the origin never allowed it (issue 41, findings 1 and 4;
/// docs/SERVING.md, "CORS when the origin cannot answer").
@Suite("End to end: a page of another site reads and replays nothing the origin never allowed", .serialized)
struct CORSAttackTests {
    /// An API that grants every page `/pub/feed.json` (`*`) and nothing else: `/internal/payroll.json`
    /// carries no CORS field, `/me` is the user's cookie page (`private, no-cache`), and the
    /// preflight for a `DELETE` of `/api/item/1` with `x-evil` is refused `403`.
    static func api() async throws -> TestOrigin {
        let api = try await TestOrigin.start()
        let json = "application/json"
        api.setRoute("/pub/feed.json", .text(#"{"feed":"public"}"#, contentType: json, headers: [("Access-Control-Allow-Origin", "*")]))
        api.setRoute("/internal/payroll.json", .text(#"{"salary":"secret payroll"}"#, contentType: json))
        api.setRoute(
            "/me",
            .dynamic { request in
                .text(
                    "<p>the page of \(request.header("cookie") ?? "nobody")</p>", contentType: "text/html",
                    headers: [("Cache-Control", "private, no-cache")])
            })
        api.setRoute(
            "/api/item/1",
            .dynamic { request in
                if request.method == "OPTIONS" {
                    return .text("refused", status: 403, contentType: "text/plain")
                }
                return .text(#"{"deleted":true}"#, contentType: json)
            })
        return api
    }

    /// A page that reads the public feed (the origin grants it), then the payroll (it does not).
    static func readingPage(api: TestOrigin) -> String {
        """
        <!doctype html><title>reader</title>
        <script>
        (async () => {
          const r = {};
          try { const f = await fetch(\(String(reflecting: api.url("/pub/feed.json")))); r.feedStatus = f.status; r.feed = await f.text(); }
          catch (e) { r.feedError = String(e); }
          try { const p = await fetch(\(String(reflecting: api.url("/internal/payroll.json")))); r.payrollStatus = p.status; r.payroll = await p.text(); }
          catch (e) { r.payrollError = String(e); }
          r.done = true;
          window.__report = r;
        })();
        </script>
        """
    }

    /// A page that reads the public feed, then sends the write the origin refuses in its preflight.
    static func deletingPage(api: TestOrigin) -> String {
        """
        <!doctype html><title>deleter</title>
        <script>
        (async () => {
          const r = {};
          try { const f = await fetch(\(String(reflecting: api.url("/pub/feed.json")))); r.feedStatus = f.status; }
          catch (e) { r.feedError = String(e); }
          try {
            const d = await fetch(\(String(reflecting: api.url("/api/item/1"))), { method: "DELETE", headers: { "x-evil": "1" } });
            r.deleteStatus = d.status;
          } catch (e) { r.deleteError = String(e); }
          r.done = true;
          window.__report = r;
        })();
        </script>
        """
    }

    @Test(
        "Chromium, finding 1: a page of another site granted `*` on one URL of an API reads no other stored answer of it offline, nor the user's cookie page",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func grantOnOneURLOpensNoOther() async throws {
        let api = try await Self.api()
        defer { Task { try? await api.stop() } }
        let hostile = try await TestOrigin.start()
        defer { Task { try? await hostile.stop() } }
        hostile.setRoute("/read.html", .text(Self.readingPage(api: api), contentType: "text/html"))
        // `localhost` is another site than the API's `127.0.0.1`: Chromium sends `Sec-Fetch-Site: cross-site`.
        let hostilePage = "http://localhost:\(hostile.port)/read.html"
        let hostileOrigin = "http://localhost:\(hostile.port)"
        let larder = try await LarderProcess()
        do {
            // The user's own requests: the payroll (stored, no CORS field) and their cookie page.
            let payroll = try await Curl.run(api.url("/internal/payroll.json"), proxy: larder.proxyURL)
            #expect(payroll.status == 200)
            let me = try await Curl.run(api.url("/me"), proxy: larder.proxyURL, arguments: ["-H", "Cookie: session=ada"])
            #expect(me.text.contains("session=ada"))
            await entriesStored(in: larder, count: 2)

            let online = try await Chromium.report(hostilePage, proxy: larder.proxyURL)
            #expect(online["feedStatus"] as? Int == 200, "online: \(online)")
            #expect(online["payrollError"] != nil, "online the origin refuses the page the payroll: \(online)")
            // A page on another port of the API's own host (same site) reads the feed too, without a cookie.
            let sameSite = "http://127.0.0.1:\(hostile.port)"
            let feed = try await Curl.run(
                api.url("/pub/feed.json"), proxy: larder.proxyURL,
                arguments: ["-H", "Origin: \(sameSite)", "-H", "Sec-Fetch-Site: same-site"])
            #expect(feed.header("access-control-allow-origin") == "*")

            try await api.stop()
            let offline = try await Chromium.report(hostilePage, proxy: larder.proxyURL)
            #expect(offline["feedStatus"] as? Int == 200, "the feed the origin granted, from the cache: \(offline)")
            #expect(offline["payrollError"] != nil, "offline, as online, the page cannot read the payroll: \(offline)")
            #expect((offline["payroll"] as? String)?.contains("secret") != true, "\(offline)")

            let asPage = try await Curl.run(
                api.url("/internal/payroll.json"), proxy: larder.proxyURL,
                arguments: ["-H", "Origin: \(hostileOrigin)", "-H", "Sec-Fetch-Site: cross-site"])
            #expect(asPage.header("access-control-allow-origin") == nil, "\(asPage.status) \(asPage.headers)")
            // The variant: the same-site page without the cookie is answered the user's page (one
            // user on loopback) but may not read it: the origin granted it nothing there.
            let cookiePage = try await Curl.run(
                api.url("/me"), proxy: larder.proxyURL, arguments: ["-H", "Origin: \(sameSite)", "-H", "Sec-Fetch-Site: same-site"])
            #expect(cookiePage.header("access-control-allow-origin") == nil, "\(cookiePage.status) \(cookiePage.headers)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test(
        "Chromium, finding 4: a write whose preflight the origin refused is refused offline too, never queued nor replayed, whatever the page was granted elsewhere",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func refusedPreflightStaysRefused() async throws {
        let api = try await Self.api()
        defer { Task { try? await api.stop() } }
        // The page is on the API's own host, another port: same site, so its writes may be queued.
        let page = try await TestOrigin.start()
        defer { Task { try? await page.stop() } }
        page.setRoute("/delete.html", .text(Self.deletingPage(api: api), contentType: "text/html"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"""
        {"queue": {"routes": [
          {"match": "\#(api.url("/api/item/*"))"},
          {"match": "\#(api.url("/api/listed/*"))", "pageOrigins": ["\#(page.baseURL)"]}
        ]}}
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(serve: ["--config", config])
        do {
            let online = try await Chromium.report(page.url("/delete.html"), proxy: larder.proxyURL)
            #expect(online["feedStatus"] as? Int == 200, "online: \(online)")
            #expect(online["deleteError"] != nil, "online the origin refuses the preflight: \(online)")
            #expect(api.requests("/api/item/1").filter { $0.method == "DELETE" }.isEmpty)

            try await api.stop()
            let offline = try await Chromium.report(page.url("/delete.html"), proxy: larder.proxyURL)
            #expect(offline["deleteError"] != nil, "offline the preflight stays refused: \(offline)")
            let preflight = try await Curl.run(
                api.url("/api/item/1"), proxy: larder.proxyURL,
                arguments: [
                    "-X", "OPTIONS", "-H", "Origin: \(page.baseURL)", "-H", "Access-Control-Request-Method: DELETE",
                    "-H", "Access-Control-Request-Headers: x-evil",
                ])
            #expect(!(200..<300).contains(preflight.status), "\(preflight.status) \(preflight.headers)")
            #expect(preflight.header("access-control-allow-origin") == nil, "\(preflight.headers)")
            #expect(preflight.header("access-control-allow-methods") == nil, "\(preflight.headers)")

            // What the user listed in pageOrigins is theirs: a preflight never seen is allowed.
            let listed = try await Curl.run(
                api.url("/api/listed/7"), proxy: larder.proxyURL,
                arguments: ["-X", "OPTIONS", "-H", "Origin: \(page.baseURL)", "-H", "Access-Control-Request-Method: PUT"])
            #expect(listed.status == 204, "\(listed.status) \(listed.headers)")
            #expect(listed.header("access-control-allow-origin") == page.baseURL)
            #expect(listed.header("cache-status")?.contains("preflight-listed-page") == true, "\(listed.headers)")
            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
            let queue = json?["writeQueue"] as? [String: Any]
            #expect(queue?["pending"] as? Int == 0, "nothing is queued: \(queue ?? [:])")

            try await api.restart()
            // The origin answers again (seen through the proxy): a queued write would be replayed now.
            _ = try await Curl.run(api.url("/pub/feed.json"), proxy: larder.proxyURL)
            try await Task.sleep(for: .seconds(4))
            #expect(api.requests("/api/item/1").filter { $0.method == "DELETE" }.isEmpty, "no DELETE ever reaches the origin")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test("an origin that allows every preflight grants no stored answer by it: offline the copy's own answer decides")
    func preflightVouchesForNoStoredCopy() async throws {
        let api = try await TestOrigin.start()
        defer { Task { try? await api.stop() } }
        // A common server set-up: every OPTIONS reflects the Origin; the answer itself grants nothing.
        api.setRoute(
            "/internal.json",
            .dynamic { request in
                if request.method == "OPTIONS" {
                    return .text(
                        "", status: 204,
                        headers: [
                            ("Access-Control-Allow-Origin", request.header("origin") ?? "*"), ("Access-Control-Allow-Headers", "x-custom"),
                        ])
                }
                return .text(#"{"secret":"internal"}"#, contentType: "application/json", headers: [("Cache-Control", "no-cache")])
            })
        let larder = try await LarderProcess()
        defer { Task { await larder.tearDown() } }
        let evil = "http://localhost:1"
        #expect(try await Curl.run(api.url("/internal.json"), proxy: larder.proxyURL).status == 200)
        await entriesStored(in: larder)
        let preflight = try await Curl.run(
            api.url("/internal.json"), proxy: larder.proxyURL,
            arguments: [
                "-X", "OPTIONS", "-H", "Origin: \(evil)", "-H", "Access-Control-Request-Method: GET",
                "-H", "Access-Control-Request-Headers: x-custom",
            ])
        #expect(preflight.header("access-control-allow-origin") == evil)

        try await api.stop()
        let offline = try await Curl.run(
            api.url("/internal.json"), proxy: larder.proxyURL,
            arguments: ["-H", "Origin: \(evil)", "-H", "Sec-Fetch-Site: cross-site", "-H", "x-custom: 1"])
        #expect(offline.status == 200, "the copy answers while the origin cannot: \(offline.headers)")
        #expect(offline.header("access-control-allow-origin") == nil, "\(offline.headers)")
    }
}
