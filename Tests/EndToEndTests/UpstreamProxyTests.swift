import Foundation
import LarderTestSupport
import Testing

/// `--upstream-proxy`: Larder under a parent proxy (a small one in the test), and the parent's
/// failures treated as the origin's, so offline fallbacks apply.
@Suite("End to end: under a parent proxy")
struct UpstreamProxyTests {
    /// A parent proxy, a plain and a TLS origin, and `larder serve` going through the parent.
    private func withParent<T>(
        parentURL: ((TestParentProxy) -> String)? = nil,
        _ body: (LarderProcess, TestParentProxy, TestOrigin, TestOrigin, _ larderCA: String) async throws -> T
    ) async throws -> T {
        let parent = try await TestParentProxy.start()
        let origin = try await TestOrigin.start()
        let tlsOrigin = try await TestOrigin.start(tls: true)
        let cache = LarderProcess.temporaryDirectory()
        let larderCA = try await LarderCLI.run(["ca", "path", "--cache-dir", cache])
        let caPath = larderCA.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let larder = try await LarderProcess(
            serve: ["--upstream-proxy", parentURL?(parent) ?? parent.url, "--upstream-ca", try #require(tlsOrigin.caCertificatePath)],
            cacheDirectory: cache)
        func stopAll() async {
            await larder.tearDown()
            try? await origin.stop()
            try? await tlsOrigin.stop()
            try? await parent.stop()
        }
        do {
            let result = try await body(larder, parent, origin, tlsOrigin, caPath)
            await stopAll()
            return result
        } catch {
            print("larder log:\n\(larder.log)")
            await stopAll()
            throw error
        }
    }

    @Test("plain HTTP goes to the parent in absolute form, HTTPS with CONNECT; a hit does not reach it; its password is never logged")
    func fetchesGoThroughTheParent() async throws {
        try await self.withParent(parentURL: { "http://alice:hunter2@127.0.0.1:\($0.port)" }) {
            larder, parent, origin, tlsOrigin, larderCA in
            origin.setRoute("/a.txt", .text("through the parent", headers: [("Cache-Control", "max-age=600")]))
            let plain = try await Curl.run(origin.url("/a.txt"), proxy: larder.proxyURL)
            #expect(plain.status == 200)
            #expect(plain.text == "through the parent")
            #expect(parent.requestLines == ["GET \(origin.url("/a.txt"))"])

            tlsOrigin.setRoute("/s.txt", .text("secure through the parent", headers: [("Cache-Control", "max-age=600")]))
            let secure = try await Curl.run(tlsOrigin.url("/s.txt"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(secure.exitCode == 0, "\(secure.stderr)")
            #expect(secure.text == "secure through the parent")
            #expect(parent.requestLines.last == "CONNECT localhost:\(tlsOrigin.port)")
            #expect(tlsOrigin.requestCount("/s.txt") == 1)

            await entriesStored(in: larder, count: 2)
            let seen = parent.requestLines.count
            let hit = try await Curl.run(origin.url("/a.txt"), proxy: larder.proxyURL)
            #expect(hit.header("cache-status")?.contains("hit") == true)
            #expect(parent.requestLines.count == seen)

            #expect(larder.log.contains("http://***@127.0.0.1:\(parent.port)"), "\(larder.log)")
            #expect(!larder.log.contains("hunter2"))
        }
    }

    @Test("a blind CONNECT tunnel and a WebSocket are opened through the parent with CONNECT")
    func tunnelsGoThroughTheParent() async throws {
        let echo = try await TCPEchoServer.start()
        defer { Task { try? await echo.stop() } }
        let parent = try await TestParentProxy.start()
        defer { Task { try? await parent.stop() } }
        let webSockets = try await WebSocketEchoOrigin.start()
        defer { Task { try? await webSockets.stop() } }
        let larder = try await LarderProcess(serve: ["--upstream-proxy", parent.url, "--connect-ports", "443,\(echo.port)"])
        defer { Task { await larder.tearDown() } }

        let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
        try connection.send("CONNECT 127.0.0.1:\(echo.port) HTTP/1.1\r\nHost: 127.0.0.1:\(echo.port)\r\n\r\n")
        #expect(await connection.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        try connection.send("\u{0}\u{1}ping\n")
        #expect(await connection.read(until: "ping\n") == "\u{0}\u{1}ping\n")
        #expect(parent.requestLines == ["CONNECT 127.0.0.1:\(echo.port)"])

        let client = try await WebSocketTestClient.connect(through: larder.port, to: webSockets.url("/chat"), protocols: ["chat"])
        defer { Task { await client.close() } }
        #expect(client.status == 101, "\(client.responseHead)")
        #expect(try await client.receiveText() == "welcome")
        try await client.sendText("hello through the parent")
        #expect(try await client.receiveText() == "echo: hello through the parent")
        #expect(parent.requestLines.last == "CONNECT 127.0.0.1:\(webSockets.port)")
    }

    @Test("a parent answering 502 (to a fetch or a CONNECT) is an unreachable origin: stored copies are served, a miss gets Larder's page")
    func failingParentFallsBack() async throws {
        try await self.withParent { larder, parent, origin, tlsOrigin, larderCA in
            origin.setRoute("/page.html", .text("<p>stored plain</p>", contentType: "text/html", headers: [("Cache-Control", "max-age=0")]))
            tlsOrigin.setRoute(
                "/page.html", .text("<p>stored secure</p>", contentType: "text/html", headers: [("Cache-Control", "max-age=0")]))
            #expect(try await Curl.run(origin.url("/page.html"), proxy: larder.proxyURL).text == "<p>stored plain</p>")
            #expect(
                try await Curl.run(tlsOrigin.url("/page.html"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA]).text
                    == "<p>stored secure</p>")
            await entriesStored(in: larder, count: 2)

            // Kept-alive connections and tunnels through the parent are closed: Larder must come back to it.
            parent.startFailing()
            let plain = try await Curl.run(origin.url("/page.html"), proxy: larder.proxyURL)
            #expect(plain.status == 200)
            #expect(plain.text == "<p>stored plain</p>")
            #expect(plain.header("cache-status")?.contains("detail=upstream-unreachable") == true, "\(plain.headers)")
            #expect(plain.header("larder-offline") == "1")
            let secure = try await Curl.run(tlsOrigin.url("/page.html"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(secure.status == 200)
            #expect(secure.text == "<p>stored secure</p>")
            #expect(secure.header("cache-status")?.contains("detail=upstream-unreachable") == true, "\(secure.headers)")
            #expect(origin.requestCount("/page.html") == 1)
            #expect(tlsOrigin.requestCount("/page.html") == 1)

            let miss = try await Curl.run(origin.url("/never-stored.html"), proxy: larder.proxyURL)
            #expect(miss.status == 502)
            #expect(miss.text.contains("upstream proxy"), "Larder's page says why: \(miss.text)")
        }
    }

    @Test("a dead parent (connection refused) gives the offline fallback for a cached entry")
    func deadParentFallsBack() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/page.html", .text("<p>cached before</p>", contentType: "text/html", headers: [("Cache-Control", "max-age=0")]))
        let cache = LarderProcess.temporaryDirectory()
        let direct = try await LarderProcess(serve: ["--upstream-proxy", "none"], cacheDirectory: cache)
        #expect(try await Curl.run(origin.url("/page.html"), proxy: direct.proxyURL).text == "<p>cached before</p>")
        await entriesStored(in: direct)
        await direct.stop()

        let dead = try RefusingPort()
        let larder = try await LarderProcess(serve: ["--upstream-proxy", "http://127.0.0.1:\(dead.port)"], cacheDirectory: cache)
        defer { Task { await larder.tearDown() } }
        let answer = try await Curl.run(origin.url("/page.html"), proxy: larder.proxyURL)
        #expect(answer.status == 200)
        #expect(answer.text == "<p>cached before</p>")
        #expect(answer.header("cache-status")?.contains("detail=upstream-unreachable") == true, "\(answer.headers)")
        #expect(origin.requestCount("/page.html") == 1, "the origin is reached only through the parent")
    }

    @Test("larder precache follows http_proxy without the option; no_proxy and --upstream-proxy none go direct")
    func precacheFollowsTheEnvironment() async throws {
        let parent = try await TestParentProxy.start()
        defer { Task { try? await parent.stop() } }
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/game/offline.meta.json", .text(#"{"files": ["game/level.bin"]}"#, contentType: "application/json"))
        origin.setRoute("/game/level.bin", .text("level one", headers: [("Cache-Control", "max-age=600")]))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try (origin.url("/game") + "\n").write(toFile: directory + "/games.txt", atomically: true, encoding: .utf8)
        func precache(into cache: String, _ arguments: [String] = [], environment: [String: String]) async throws -> Int32 {
            let result = try await LarderCLI.run(
                ["precache", directory + "/games.txt", "--cache-dir", directory + "/" + cache] + arguments, environment: environment)
            #expect(result.exitCode == 0, "\(result.stderr)")
            return result.exitCode
        }

        _ = try await precache(into: "through", environment: ["http_proxy": parent.url])
        #expect(parent.requestLines.contains("GET \(origin.url("/game/level.bin"))"), "\(parent.requestLines)")
        let seen = parent.requestLines.count
        _ = try await precache(into: "excluded", environment: ["http_proxy": parent.url, "no_proxy": "localhost,127.0.0.1"])
        _ = try await precache(into: "direct", ["--upstream-proxy", "none"], environment: ["HTTP_PROXY": parent.url])
        #expect(parent.requestLines.count == seen)
        #expect(origin.requestCount("/game/level.bin") == 3)
    }

    @Test("a bad --upstream-proxy or proxy variable is a usage error naming it, never showing the password")
    func badSetting() async throws {
        let option = try await LarderCLI.run(
            [
                "serve", "--port", "0", "--cache-dir", LarderProcess.temporaryDirectory(), "--upstream-proxy",
                "socks5://u:secret@127.0.0.1:1080",
            ])
        #expect(option.exitCode == 2)
        #expect(option.stderr.contains(#"--upstream-proxy: the scheme "socks5" is not supported"#), "\(option.stderr)")
        #expect(!option.stderr.contains("secret"))

        let variable = try await LarderCLI.run(
            ["precache", "--cache-dir", LarderProcess.temporaryDirectory(), "/dev/null"],
            environment: ["https_proxy": "http://u:secret@proxy:x"])
        #expect(variable.exitCode == 2)
        #expect(variable.stderr.contains(#"https_proxy: its port "x" is not a number"#), "\(variable.stderr)")
        #expect(variable.stderr.contains("--upstream-proxy none"), "\(variable.stderr)")
        #expect(!variable.stderr.contains("secret"))

        // A parent at this proxy's own address would send every request back to it.
        let loop = try await LarderCLI.run(
            ["serve", "--port", "18080", "--cache-dir", LarderProcess.temporaryDirectory(), "--upstream-proxy", "http://localhost:18080"],
            timeout: .seconds(30))
        #expect(loop.exitCode == 2)
        #expect(loop.stderr.contains("is this proxy's own address"), "\(loop.stderr)")
    }
}
