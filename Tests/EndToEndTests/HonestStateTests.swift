import Foundation
import LarderTestSupport
import Synchronization
import Testing

/// What /dev/offline says of the network through the real binary: a refused WebSocket is an offline
/// miss, the badge says which origins cannot be reached, the browser's own requests are shown apart,
/// a POST miss says what it was, and a returned origin is noticed within about a second
/// (docs/SERVING.md, "Offline misses", "The browser's own requests", "Disconnected operation").
@Suite("End to end: honest state", .serialized)
struct HonestStateTests {
    private static func report(_ larder: LarderProcess) async throws -> [String: Any] {
        let response = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        #expect(response.status == 200)
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    private static func page(_ larder: LarderProcess) async throws -> String {
        try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil).text
    }

    /// Every offline miss of the app's in the report, of every group.
    private static func appMisses(_ report: [String: Any]) -> [[String: Any]] {
        let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return groups.flatMap { $0["misses"] as? [[String: Any]] ?? [] }
    }

    @Test("a WebSocket refused because its origin is down is an offline miss: listed with its page and count, and it lowers the hit ratio")
    func refusedWebSocket() async throws {
        let app = try await TestOrigin.start()
        app.setRoute("/notebook", .text("<p>notebook</p>", contentType: "text/html", headers: [("Cache-Control", "max-age=600")]))
        let sockets = try await WebSocketEchoOrigin.start()
        let socket = sockets.url("/ws")
        try await sockets.stop()
        try await withLarder { larder in
            let page = app.url("/notebook")
            #expect(try await Curl.run(page, proxy: larder.proxyURL).status == 200)
            #expect(try await Curl.run(page, proxy: larder.proxyURL).header("cache-status")?.hasPrefix("larder; hit") == true)
            // The handshake as a page's script sends it (curl speaks it well enough to be refused).
            let handshake = [
                "-H", "Upgrade: websocket", "-H", "Connection: Upgrade", "-H", "Sec-WebSocket-Version: 13",
                "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "-H", "Referer: \(page)",
            ]
            for _ in 0..<3 {
                let refused = try await Curl.run(socket, proxy: larder.proxyURL, arguments: handshake)
                #expect(refused.status == 502)
                #expect(refused.header("cache-status")?.hasSuffix("websocket") == true)
            }

            let report = try await Self.report(larder)
            let requests = report["requests"] as? [String: Any] ?? [:]
            #expect(requests["offlineMisses"] as? Int == 3)
            #expect(requests["hits"] as? Int == 1)
            // 1 hit of 1 hit + 1 fetch + 3 offline misses.
            #expect(requests["hitRatio"] as? Double == 0.2)
            let miss = Self.appMisses(report).first { $0["url"] as? String == socket }
            #expect(miss?["count"] as? Int == 3)
            #expect(miss?["referer"] as? String == page)
            #expect(miss?["upgrade"] as? String == "websocket")
            #expect(miss?["method"] as? String == "GET")

            let html = try await Self.page(larder)
            #expect(html.contains(socket))
            #expect(html.contains("GET (websocket)"))
            #expect(html.contains("<b>20%</b>"))
        }
        try? await app.stop()
    }

    @Test(
        "the badge: Online while origins answer, Origins unreachable naming them while one is down, Offline mode when asked, Online again when it returns"
    )
    func badge() async throws {
        let app = try await TestOrigin.start()
        app.setRoute("/data.json", .text("{}", contentType: "application/json", headers: [("Cache-Control", "max-age=0")]))
        try await withLarder { larder in
            let url = app.url("/data.json")
            #expect(try await Curl.run(url, proxy: larder.proxyURL).status == 200)
            #expect(try await Self.page(larder).contains(#"<span class="pill online">Online</span>"#))

            try await app.stop()
            let stale = try await Curl.run(url, proxy: larder.proxyURL)
            #expect(stale.header("cache-status")?.contains("detail=upstream-unreachable") == true)
            let html = try await Self.page(larder)
            #expect(html.contains("Origins unreachable (1)"))
            #expect(html.contains(app.baseURL))
            #expect(!html.contains(">Online<"), "not Online while the only origin is down")
            let connectivity = try await Self.report(larder)["connectivity"] as? [String: Any] ?? [:]
            #expect(connectivity["state"] as? String == "origins-unreachable")
            #expect(connectivity["unreachableOrigins"] as? [String] == [app.baseURL])

            let toggle = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/offline", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-urlencode", "offline=on"])
            #expect(toggle.status == 303)
            #expect(try await Self.page(larder).contains(#"<span class="pill offline">Offline mode</span>"#))
            let offline = try await Self.report(larder)["connectivity"] as? [String: Any] ?? [:]
            #expect(offline["state"] as? String == "offline")
            let back = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/offline", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-urlencode", "offline=off"])
            #expect(back.status == 303)

            try await app.restart()
            #expect(
                await eventually(within: 10) {
                    _ = try? await Curl.run(url, proxy: larder.proxyURL)
                    return (try? await Self.page(larder).contains(#"<span class="pill online">Online</span>"#)) == true
                })
        }
        try? await app.stop()
    }

    @Test(
        "the browser's own requests (no Referer, Sec-Fetch-Site none, a host no page asked for) are listed apart, not as the app's misses or unreachable hosts"
    )
    func browsersOwnRequests() async throws {
        let app = try await TestOrigin.start()
        let service = try await TestOrigin.start()
        let update = service.url("/service/update2/json")
        try await service.stop()
        try await app.stop()
        try await withLarder { larder in
            let page = app.url("/")
            // The user's page and a fetch it makes: the app's.
            let navigation = ["-H", "Sec-Fetch-Site: none", "-H", "Sec-Fetch-Mode: navigate", "-H", "Sec-Fetch-Dest: document"]
            #expect(try await Curl.run(page, proxy: larder.proxyURL, arguments: navigation).status == 502)
            let fetch = ["-H", "Sec-Fetch-Site: same-origin", "-H", "Sec-Fetch-Mode: cors", "-H", "Referer: \(page)"]
            #expect(try await Curl.run(app.url("/api/today"), proxy: larder.proxyURL, arguments: fetch).status == 502)
            // The browser's update check, as Chromium sends it.
            let background = [
                "-X", "POST", "--data", "{}", "-H", "Sec-Fetch-Site: none", "-H", "Sec-Fetch-Mode: no-cors", "-H", "Sec-Fetch-Dest: empty",
            ]
            for _ in 0..<2 {
                #expect(try await Curl.run(update, proxy: larder.proxyURL, arguments: background).status == 502)
            }

            let report = try await Self.report(larder)
            let appURLs = Set(Self.appMisses(report).compactMap { $0["url"] as? String })
            #expect(appURLs == [page, app.url("/api/today")])
            let browser = (report["offlineMisses"] as? [String: Any])?["browserMisses"] as? [[String: Any]] ?? []
            #expect(browser.map { $0["url"] as? String } == [update])
            #expect(browser.first?["count"] as? Int == 2)
            let connectivity = report["connectivity"] as? [String: Any] ?? [:]
            #expect(connectivity["unreachableOrigins"] as? [String] == [app.baseURL])
            let hosts = report["upstream"] as? [[String: Any]] ?? []
            #expect(hosts.first { $0["origin"] as? String == service.baseURL }?["browser"] as? Bool == true)
            #expect(hosts.first { $0["origin"] as? String == app.baseURL }?["browser"] as? Bool == false)

            let html = try await Self.page(larder)
            #expect(html.contains("Origins unreachable (1)"))
            #expect(html.contains("The browser's own requests"))
            let appSection = html.components(separatedBy: "The browser's own requests").first ?? ""
            #expect(!appSection.contains(update), "the update check is not among the app's misses")
        }
    }

    @Test(
        "a POST that no route keys, missed while its origin is down, says what it was: method, URL, count, page, and why no copy answers it"
    )
    func postMiss() async throws {
        let app = try await TestOrigin.start()
        try await app.stop()
        try await withLarder { larder in
            let page = app.url("/dashboard")
            let callback = app.url("/_dash-update-component")
            for _ in 0..<2 {
                let sent = try await Curl.run(
                    callback, proxy: larder.proxyURL,
                    arguments: [
                        "-X", "POST", "--data", #"{"output":"graph.figure"}"#, "-H", "Content-Type: application/json", "-H",
                        "Referer: \(page)",
                    ])
                #expect(sent.status == 502)
                #expect(sent.header("cache-status")?.contains("fwd=method") == true)
            }
            let miss = Self.appMisses(try await Self.report(larder)).first { $0["url"] as? String == callback }
            #expect(miss?["method"] as? String == "POST")
            #expect(miss?["count"] as? Int == 2)
            #expect(miss?["referer"] as? String == page)
            let note = miss?["note"] as? String ?? ""
            #expect(note.contains("POST requests are not stored on defaults"))
            #expect(note.contains("cacheMethods"))
            let html = try await Self.page(larder)
            #expect(html.contains(callback))
            #expect(html.contains("POST requests are not stored on defaults"))
        }
    }

    @Test("a returned origin is noticed within 2 s though it was backing off: its first answer, and the write queued meanwhile")
    func returnedOriginNoticed() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        // A failed replay waits a minute: only the origin's answer to another request can start it sooner.
        try #"{"queue": {"routes": [{"match": "/api/move", "methods": ["POST"]}], "retry": {"base": "60s", "step": "1s", "max": "60s"}}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let app = try await TestOrigin.start()
        app.setRoute("/api/state.json", .text(#"{"turn":1}"#, contentType: "application/json", headers: [("Cache-Control", "max-age=0")]))
        let delivered = Mutex<ContinuousClock.Instant?>(nil)
        app.setRoute(
            "/api/move",
            .dynamic { _ in
                delivered.withLock { $0 = $0 ?? .now }
                return .text("saved", status: 201)
            })
        try await withLarder(["--config", config]) { larder in
            let state = app.url("/api/state.json")
            #expect(try await Curl.run(state, proxy: larder.proxyURL).status == 200)
            try await app.stop()
            // Answered from the cache; two connect failures start the back-off.
            for _ in 0..<4 {
                #expect(try await Curl.run(state, proxy: larder.proxyURL).status == 200)
            }
            let backingOff = try await Self.report(larder)["upstream"] as? [[String: Any]] ?? []
            #expect(backingOff.first?["state"] as? String == "backing-off")
            let move = try await Curl.run(app.url("/api/move"), proxy: larder.proxyURL, arguments: ["-X", "POST", "--data", #"{"x":1}"#])
            #expect(move.status == 202)
            #expect(
                await eventually(within: 15) {
                    let queue = (try? await Self.report(larder))?["writeQueue"] as? [String: Any]
                    let origins = queue?["origins"] as? [[String: Any]] ?? []
                    return (origins.first?["consecutiveFailures"] as? Int ?? 0) >= 1
                }, "the write's first replay failed while the origin was down")

            try await app.restart()
            let restarted = ContinuousClock.now
            var answered: ContinuousClock.Instant?
            while answered == nil, ContinuousClock.now - restarted < .seconds(15) {
                let response = try await Curl.run(state, proxy: larder.proxyURL)
                // The origin's own answer: forwarded (a revalidation), not a copy given in its place.
                if response.status == 200, response.header("cache-status")?.contains("fwd=") == true,
                    response.header("larder-offline") == nil
                {
                    answered = .now
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            let firstAnswer = try #require(answered, "the origin answered no request within 15 s of its return")
            #expect(firstAnswer - restarted < .seconds(2), "first answer from the origin \(firstAnswer - restarted) after its return")
            #expect(await eventually(within: 15) { delivered.withLock { $0 } != nil })
            if let delivery = delivered.withLock({ $0 }) {
                #expect(delivery - restarted < .seconds(2), "queued write delivered \(delivery - restarted) after the origin's return")
            }
        }
        try? await app.stop()
    }
}
