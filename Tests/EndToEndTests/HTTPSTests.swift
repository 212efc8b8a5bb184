import Foundation
import LarderTestSupport
import Testing

/// HTTPS through the real binary: interception with Larder's CA, pass-through, upstream
/// verification, offline.
@Suite("End to end: HTTPS")
struct HTTPSTests {
    /// A TLS origin (its own test CA) and larder trusting that CA upstream.
    private func withTLSProxy<T>(
        arguments: [String] = [],
        _ body: (LarderProcess, TestOrigin, _ originCA: String, _ larderCA: String) async throws -> T
    ) async throws -> T {
        let origin = try await TestOrigin.start(tls: true)
        let originCA = try #require(origin.caCertificatePath)
        let cache = LarderProcess.temporaryDirectory()
        let larderCA = try await LarderCLI.run(["ca", "path", "--cache-dir", cache])
        #expect(larderCA.exitCode == 0, "\(larderCA.stderr)")
        let caPath = larderCA.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Defaults otherwise: the origin's port is not 443, and interception works on any port.
        let larder = try await LarderProcess(serve: ["--upstream-ca", originCA] + arguments, cacheDirectory: cache)
        do {
            let result = try await body(larder, origin, originCA, caPath)
            await larder.tearDown()
            try? await origin.stop()
            return result
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            try? await origin.stop()
            throw error
        }
    }

    @Test("an intercepted HTTPS page is fetched, stored, and served from the cache with the origin down")
    func interceptAndCache() async throws {
        try await self.withTLSProxy { larder, origin, _, larderCA in
            origin.setRoute("/secure.html", .text("<p>secret garden</p>", contentType: "text/html"))
            let first = try await Curl.run(origin.url("/secure.html"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(first.exitCode == 0, "\(first.stderr)")
            #expect(first.text == "<p>secret garden</p>")
            #expect(first.header("cache-status")?.contains("stored") == true)
            try await origin.stop()
            let second = try await Curl.run(origin.url("/secure.html"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(second.exitCode == 0, "\(second.stderr)")
            #expect(second.text == "<p>secret garden</p>")
            #expect(second.header("cache-status")?.contains("hit") == true)

            let served = try await Curl.run(larder.proxyURL + "/ca.pem", proxy: nil)
            #expect(served.status == 200)
            #expect(served.text == (try String(contentsOfFile: larderCA, encoding: .utf8)))
        }
    }

    @Test("through interception, a body over the small-body limit and its ranges come right, on every hit")
    func largeBodyThroughTLS() async throws {
        let length: Int64 = 3 << 20
        try await self.withTLSProxy { larder, origin, _, larderCA in
            origin.setRoute("/big.bin", TestResponse(body: .generated(length: length)))
            let first = try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(first.header("cache-status")?.contains("stored") == true)
            await entriesStored(in: larder)
            try await origin.stop()
            // The first hit prepares the target; later ones may be answered on the event loop.
            for _ in 0..<3 {
                let whole = try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
                #expect(whole.exitCode == 0, "\(whole.stderr)")
                #expect(whole.header("cache-status")?.hasPrefix("larder; hit") == true)
                #expect(Bytes(whole.body) == Bytes(GeneratedBody.bytes(0..<length)))
            }
            let range = try await Curl.run(
                origin.url("/big.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA, "-r", "2000000-2999999"])
            #expect(range.status == 206)
            #expect(range.header("content-range") == "bytes 2000000-2999999/\(length)")
            #expect(Bytes(range.body) == Bytes(GeneratedBody.bytes(2_000_000..<3_000_000)))
        }
    }

    @Test(
        "through interception, a body file cut short while it is sent ends the connection before its declared length, every byte sent right"
    )
    func bodyFileCutMidwayThroughTLS() async throws {
        let length: Int64 = 32 << 20
        try await self.withTLSProxy { larder, origin, _, larderCA in
            origin.setRoute("/cut.bin", TestResponse(body: .generated(length: length)))
            let first = try await Curl.run(origin.url("/cut.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(first.exitCode == 0, "\(first.stderr)")
            await entriesStored(in: larder)
            // Served from the cache from now on (the answer has no freshness; offline, it is a hit).
            try await origin.stop()
            let hit = try await Curl.run(origin.url("/cut.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA])
            #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(Bytes(hit.body) == Bytes(GeneratedBody.bytes(0..<length)))
            let bodies = larder.cacheDirectory + "/bodies"
            let files = FileManager.default.enumerator(atPath: bodies)?.compactMap { $0 as? String } ?? []
            let bodyFile = try #require(
                files.map { bodies + "/" + $0 }.first { path in
                    ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0) == length
                }, "the stored body in \(bodies)")
            // Slowly, so much of the body is still unread when something other than Larder cuts its
            // file (loopback sockets may buffer tens of MiB).
            async let slow = Curl.run(
                origin.url("/cut.bin"), proxy: larder.proxyURL, arguments: ["--cacert", larderCA, "--limit-rate", "4M"])
            try await Task.sleep(for: .seconds(1))
            #expect(truncate(bodyFile, 1 << 20) == 0)
            let cut = try await slow
            #expect(cut.exitCode != 0, "curl took the cut body for a whole one")
            #expect(cut.body.count < Int(length), "\(cut.body.count) bytes")
            #expect(Bytes(cut.body) == Bytes(GeneratedBody.bytes(0..<Int64(cut.body.count))), "a wrong byte before the cut")
        }
    }

    @Test("an intercepted hit answered from memory has the same status line, header fields in order, and body as the first hit")
    func interceptedHitsAnswerAlike() async throws {
        try await self.withTLSProxy { larder, origin, _, larderCA in
            origin.setRoute(
                "/app.js", .text("console.log('alike')", contentType: "text/javascript", headers: [("Cache-Control", "max-age=3600")]))
            /// The head curl received for a fetch through the tunnel, with `Age` and the ttl masked
            /// (a second may pass between fetches), and the body.
            func fetch() async throws -> (head: String, body: String) {
                let directory = LarderProcess.temporaryDirectory()
                let (code, stderr) = try await Curl.execute([
                    "-sS", "--cacert", larderCA, "-x", larder.proxyURL, "-D", directory + "/head", "-o", directory + "/body",
                    origin.url("/app.js"),
                ])
                #expect(code == 0, "\(stderr)")
                let head =
                    try String(contentsOfFile: directory + "/head", encoding: .utf8)
                    .components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
                let masked = head.components(separatedBy: "\r\n").map { line in
                    line.lowercased().hasPrefix("age: ")
                        ? "age: N" : line.replacingOccurrences(of: #"ttl=-?\d+"#, with: "ttl=N", options: .regularExpression)
                }
                return (masked.joined(separator: "\r\n"), try String(contentsOfFile: directory + "/body", encoding: .utf8))
            }
            let stored = try await fetch()
            #expect(stored.head.contains("stored"))
            await entriesStored(in: larder)
            // The first hit goes the ordinary way and keeps its answer in memory; the next ones are
            // answered from it on the connection's event loop.
            let first = try await fetch()
            let next = try await fetch()
            #expect(first.head.contains("Cache-Status: larder; hit; ttl=N"))
            #expect(next.head == first.head)
            #expect(next.body == "console.log('alike')")
            #expect(next.body == first.body)
            #expect(origin.requestCount("/app.js") == 1)
        }
    }

    @Test("bytes sent right after CONNECT are not lost, and keep-alive works inside the tunnel")
    func keepAliveInsideTunnel() async throws {
        try await self.withTLSProxy { larder, origin, _, larderCA in
            origin.setRoute("/a", .text("A"))
            origin.setRoute("/b", .text("B"))
            // One curl, two URLs: the second reuses the intercepted connection.
            let (code, stderr) = try await Curl.execute([
                "-sS", "--cacert", larderCA, "-x", larder.proxyURL, "-o", "/dev/null", "-o", "/dev/null", origin.url("/a"),
                origin.url("/b"),
            ])
            #expect(code == 0, "\(stderr)")
            #expect(origin.requestCount("/a") == 1)
            #expect(origin.requestCount("/b") == 1)
        }
    }

    @Test("a client that does not trust Larder's CA fails its handshake (no silent downgrade)")
    func untrustedClientFails() async throws {
        try await self.withTLSProxy { larder, origin, originCA, _ in
            origin.setRoute("/x", .text("x"))
            let result = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL, arguments: ["--cacert", originCA])
            #expect(result.exitCode == 60, "curl exit \(result.exitCode): \(result.stderr)")
            #expect(origin.requestCount("/x") == 0)
        }
    }

    @Test("--no-intercept and --tunnel pass HTTPS through to --connect-ports: the client sees the origin's own certificate")
    func passThrough() async throws {
        try await self.withTLSProxy(arguments: ["--no-intercept", "--connect-ports", "*"]) { larder, origin, originCA, _ in
            origin.setRoute("/x", .text("direct"))
            let result = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL, arguments: ["--cacert", originCA])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.text == "direct")
        }
        try await self.withTLSProxy(arguments: ["--tunnel", "local*", "--connect-ports", "*"]) { larder, origin, originCA, _ in
            origin.setRoute("/x", .text("direct"))
            let result = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL, arguments: ["--cacert", originCA])
            #expect(result.exitCode == 0, "\(result.stderr)")
        }
    }

    @Test("TLS to a pass-through host on a port outside --connect-ports is closed after the 200, never tunnelled")
    func passThroughOnlyToConnectPorts() async throws {
        try await self.withTLSProxy(arguments: ["--tunnel", "local*"]) { larder, origin, originCA, _ in
            origin.setRoute("/x", .text("direct"))
            let result = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL, arguments: ["--cacert", originCA])
            #expect(result.exitCode != 0, "\(result.stderr)")
            #expect(origin.requestCount("/x") == 0)
            #expect(await logMentions(larder, "passes through untouched"), "\(larder.log)")
        }
    }

    @Test("an upstream with an untrusted certificate gives a 502 that says so")
    func untrustedUpstream() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.setRoute("/x", .text("x"))
        let cache = LarderProcess.temporaryDirectory()
        let caPath = try await LarderCLI.run(["ca", "path", "--cache-dir", cache]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let larder = try await LarderProcess(serve: [], cacheDirectory: cache)
        let result = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL, arguments: ["--cacert", caPath])
        #expect(result.status == 502)
        #expect(result.text.lowercased().contains("certificate"), "\(result.text)")
        #expect(origin.requestCount("/x") == 0)
        await larder.tearDown()
        try await origin.stop()
    }

    @Test("offline, CONNECT still succeeds and cached HTTPS pages are served; misses get the 504 page")
    func offlineHTTPS() async throws {
        let origin = try await TestOrigin.start(tls: true)
        let originCA = try #require(origin.caCertificatePath)
        origin.setRoute("/page.html", .text("cached over tls", contentType: "text/html"))
        let cache = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let caPath = try await LarderCLI.run(["ca", "path", "--cache-dir", cache]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let online = try await LarderProcess(serve: ["--upstream-ca", originCA], cacheDirectory: cache)
        _ = try await Curl.run(origin.url("/page.html"), proxy: online.proxyURL, arguments: ["--cacert", caPath])
        await online.stop()
        try await origin.stop()

        let offline = try await LarderProcess(serve: ["--offline"], cacheDirectory: cache)
        let hit = try await Curl.run(origin.url("/page.html"), proxy: offline.proxyURL, arguments: ["--cacert", caPath])
        #expect(hit.exitCode == 0, "\(hit.stderr)")
        #expect(hit.text == "cached over tls")
        let miss = try await Curl.run(origin.url("/nope.js"), proxy: offline.proxyURL, arguments: ["--cacert", caPath])
        #expect(miss.status == 504)
        #expect(miss.header("cache-status") == "larder; fwd=uri-miss; detail=offline")
        await offline.stop()
    }

    @Test("precache over HTTPS: games.txt and manifests on https:// work, and are served offline through interception")
    func precacheOverHTTPS() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.serveDirectory(DemoSite.root)
        let originCA = try #require(origin.caCertificatePath)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        let run = try await LarderCLI.run(["precache", list, "--cache-dir", cache, "--upstream-ca", originCA])
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        try await origin.stop()

        let caPath = try await LarderCLI.run(["ca", "path", "--cache-dir", cache]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let larder = try await LarderProcess(serve: ["--offline"], cacheDirectory: cache)
        let asset = "/games/flipart/assets/index-s5wVp7Ny.js"
        let response = try await Curl.run(origin.url(asset), proxy: larder.proxyURL, arguments: ["--cacert", caPath])
        let expected = try Data(contentsOf: URL(fileURLWithPath: DemoSite.root + asset))
        #expect(response.exitCode == 0, "\(response.stderr)")
        #expect(Bytes(response.body) == Bytes(expected))
        #expect(response.header("cache-status")?.hasPrefix("larder; hit") == true)
        await larder.stop()
    }

    @Test("larder ca export writes PEM and DER; the CA key is private")
    func caExport() async throws {
        let cache = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let pem = try await LarderCLI.run(["ca", "export", "--cache-dir", cache])
        #expect(pem.exitCode == 0)
        #expect(pem.stdout.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let derFile = cache + "/ca.der"
        let der = try await LarderCLI.run(["ca", "export", "--format", "der", "--output", derFile, "--cache-dir", cache])
        #expect(der.exitCode == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: derFile))
        #expect(bytes.first == 0x30, "DER starts with a SEQUENCE")
        let keys = try FileManager.default.contentsOfDirectory(atPath: cache + "/ca").filter { $0.contains("key") }
        #expect(!keys.isEmpty)
        for key in keys {
            let mode = try FileManager.default.attributesOfItem(atPath: cache + "/ca/" + key)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(key) has mode \(String(mode ?? 0, radix: 8))")
        }
    }
}

/// A real browser trusting Larder's CA the way a user would (an NSS database, not
/// `--ignore-certificate-errors`) loads an HTTPS demo page online, then with the origin gone.
@Suite("End to end: HTTPS in a browser")
struct HTTPSBrowserTests {
    @Test(
        "headless Chromium loads the HTTPS demo page through Larder, then again from the cache with the origin stopped",
        .enabled(if: Chromium.isInstalled && Chromium.canTrustCertificates, "needs chromium and certutil (scripts/setup installs them)")
    )
    func browserOverHTTPS() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.serveDirectory(DemoSite.root)
        let originCA = try #require(origin.caCertificatePath)
        let cache = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let caPath = try await LarderCLI.run(["ca", "path", "--cache-dir", cache]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let larder = try await LarderProcess(serve: ["--upstream-ca", originCA], cacheDirectory: cache)
        let page = origin.url("/index.html")

        let online = try await Chromium.run(page, proxy: larder.proxyURL, arguments: ["--dump-dom"], trustedCA: caPath)
        #expect(online.stdout.contains("app.js ran"), "online DOM:\n\(online.stdout.prefix(2000))\n\(online.stderr.suffix(2000))")
        #expect(origin.requestCount("/index.html") >= 1)
        #expect(origin.requestCount("/app.js") >= 1)
        try await origin.stop()

        let offline = try await Chromium.run(
            page,
            proxy: larder.proxyURL,
            arguments: ["--dump-dom"],
            trustedCA: caPath
        )
        #expect(offline.stdout.contains("app.js ran"), "offline DOM:\n\(offline.stdout.prefix(2000))\n\(offline.stderr.suffix(2000))")
        let screenshot = Chromium.outputDirectory + "/https-demo-offline.png"
        _ = try await Chromium.run(
            page, proxy: larder.proxyURL, arguments: ["--screenshot=\(screenshot)", "--window-size=1024,768"], trustedCA: caPath)
        #expect(FileManager.default.fileExists(atPath: screenshot))
        await larder.stop()
    }
}

/// The same in a WebKitGTK webview (what WKWebView is on Apple platforms): Larder's CA trusted for
/// the webview only (Tests/Fixtures/webkit-report.py says how), never TLS checks turned off.
@Suite("End to end: HTTPS in a WebKitGTK webview")
struct HTTPSWebKitTests {
    /// What the demo page's app.js wrote, once the page has loaded.
    private static let demoStatus =
        "document.readyState === 'complete' && {done: true, status: document.getElementById('status').textContent}"

    @Test(
        "a WebKitGTK webview trusting Larder's CA loads the HTTPS demo page through Larder, then again from the cache with the origin stopped",
        .enabled(if: WebKit.isInstalled, "needs a WebKitGTK webview; scripts/setup installs it (gir1.2-webkit2-4.1, python3-gi, xvfb)")
    )
    func webKitOverHTTPS() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.serveDirectory(DemoSite.root)
        let originCA = try #require(origin.caCertificatePath)
        let cache = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let caPath = try await LarderCLI.run(["ca", "path", "--cache-dir", cache]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let larder = try await LarderProcess(serve: ["--upstream-ca", originCA], cacheDirectory: cache)
        let page = origin.url("/index.html")

        // Without Larder's CA the webview refuses the page: the CA is what lets it through.
        let untrusted = try await WebKit.report(page, proxy: larder.proxyURL, report: Self.demoStatus, timeout: .seconds(30))
        #expect(untrusted["tlsRefused"] as? String == URL(string: page)?.host, "\(untrusted)")
        #expect(untrusted["status"] == nil, "\(untrusted)")

        let online = try await WebKit.report(
            page, proxy: larder.proxyURL, trustedCA: caPath, report: Self.demoStatus, timeout: .seconds(30))
        #expect(online["status"] as? String == "app.js ran", "online: \(online)")
        #expect(origin.requestCount("/index.html") >= 1)
        #expect(origin.requestCount("/app.js") >= 1)
        try await origin.stop()

        let offline = try await WebKit.report(
            page, proxy: larder.proxyURL, trustedCA: caPath, report: Self.demoStatus, timeout: .seconds(30))
        #expect(offline["status"] as? String == "app.js ran", "offline: \(offline)")
        await larder.stop()
    }
}
