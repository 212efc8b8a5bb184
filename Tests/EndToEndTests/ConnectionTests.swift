import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// Connections, tunnels, security defaults and shutdown of the real binary.
@Suite("End to end: connections and security")
struct ConnectionTests {
    @Test("with --no-intercept, HTTPS goes through a CONNECT tunnel; the client sees the origin's own certificate")
    func connectTunnel() async throws {
        try await withProxy(arguments: ["--connect-ports", "*", "--no-intercept"], tlsOrigin: true) { larder, origin in
            origin.setRoute("/secure.html", .text("over tls", contentType: "text/html"))
            let caPath = try #require(origin.caCertificatePath)
            let response = try await Curl.run(origin.url("/secure.html"), proxy: larder.proxyURL, arguments: ["--cacert", caPath])
            #expect(response.exitCode == 0, "\(response.stderr)")
            #expect(response.status == 200)
            #expect(response.text == "over tls")
            #expect(origin.requestCount("/secure.html") == 1)
        }
    }

    @Test("on defaults, a plain GET through CONNECT to a port other than 443 is served through the cache: stored, then a hit")
    func plainHTTPInsideConnect() async throws {
        try await withProxy { larder, origin in
            #expect(origin.port != 443)
            origin.setRoute("/data.json", .text("{\"n\":1}", contentType: "application/json", headers: [("Cache-Control", "max-age=3600")]))
            // --proxytunnel: curl sends CONNECT 127.0.0.1:PORT, then GET /data.json inside, as browsers do for ws://.
            let first = try await Curl.run(origin.url("/data.json"), proxy: larder.proxyURL, arguments: ["--proxytunnel"])
            #expect(first.exitCode == 0, "\(first.stderr)")
            #expect(first.status == 200)
            #expect(first.text == "{\"n\":1}")
            #expect(first.header("cache-status") == "larder; fwd=uri-miss; fwd-status=200; stored", "\(first.headers)")
            await entriesStored(in: larder)

            let second = try await Curl.run(origin.url("/data.json"), proxy: larder.proxyURL, arguments: ["--proxytunnel"])
            #expect(second.exitCode == 0, "\(second.stderr)")
            #expect(second.text == "{\"n\":1}")
            #expect(second.header("cache-status")?.hasPrefix("larder; hit") == true, "\(second.headers)")
            #expect(origin.requestCount("/data.json") == 1)
            let request = try #require(origin.requests().first)
            #expect(request.uri == "/data.json")
            // /dev/offline lists the requests inside the tunnel under their full URLs, after the CONNECT.
            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])
            let recent = (json["recentRequests"] as? [[String: Any]] ?? []).map { "\($0["method"] ?? "") \($0["url"] ?? "")" }
            #expect(recent.filter { $0 == "GET \(origin.url("/data.json"))" }.count == 2, "\(recent)")
            #expect(recent.contains("CONNECT 127.0.0.1:\(origin.port)"), "\(recent)")
        }
    }

    @Test("a tunnel carrying neither TLS nor HTTP is closed after its 200 when its port is not in --connect-ports")
    func otherProtocolRefused() async throws {
        let echo = try await TCPEchoServer.start()
        defer { Task { try? await echo.stop() } }
        try await withProxy { larder, _ in
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send("CONNECT 127.0.0.1:\(echo.port) HTTP/1.1\r\nHost: 127.0.0.1:\(echo.port)\r\n\r\n")
            let answer = await connection.read(until: "\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            try connection.send("\u{0}\u{1}ping\n")
            let rest = await connection.readToEnd()
            #expect(rest.isEmpty, "nothing after the 200: \(rest)")
            #expect(echo.connectionCount == 0)
            #expect(await logMentions(larder, "CONNECT tunnel closed"), "\(larder.log)")
            #expect(await logMentions(larder, "--connect-ports (allowed: 443)"), "\(larder.log)")
        }
    }

    @Test("a tunnel carrying neither TLS nor HTTP is passed through, bytes both ways, when its port is in --connect-ports")
    func otherProtocolTunnelled() async throws {
        let echo = try await TCPEchoServer.start()
        defer { Task { try? await echo.stop() } }
        try await withProxy(arguments: ["--connect-ports", "443,\(echo.port)"]) { larder, _ in
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send("CONNECT 127.0.0.1:\(echo.port) HTTP/1.1\r\nHost: 127.0.0.1:\(echo.port)\r\n\r\n")
            let answer = await connection.read(until: "\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            try connection.send("\u{0}\u{1}ping\n")
            let echoed = await connection.read(until: "ping\n")
            #expect(echoed == "\u{0}\u{1}ping\n")
            try connection.send("second\n")
            #expect(await connection.read(until: "second\n") == "second\n")
            #expect(echo.connectionCount == 1)
        }
    }

    @Test("a client that sends nothing after its CONNECT is closed at --idle-timeout")
    func silentTunnelClosed() async throws {
        try await withProxy(arguments: ["--idle-timeout", "2"]) { larder, origin in
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
            let started = ContinuousClock.now
            let answer = await connection.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            // Closed by Larder, not by the 20 s read timeout of the test's socket.
            #expect(ContinuousClock.now - started < .seconds(15))
            #expect(origin.requests().isEmpty)
        }
    }

    @Test("a client outside the allow list gets 403; loopback is served")
    func allowList() async throws {
        let address = try #require(RawConnection.nonLoopbackIPv4(), "this machine has no non-loopback IPv4 address")
        try await withProxy(arguments: ["--host", "0.0.0.0", "--allow", "198.51.100.0/24"]) { larder, origin in
            origin.setRoute("/x", .text("x"))
            let outsider = try await Curl.run(origin.url("/x"), proxy: "http://\(address):\(larder.port)")
            #expect(outsider.status == 403)
            #expect(outsider.text.contains("--allow"))
            #expect(origin.requests().isEmpty)
            let local = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL)
            #expect(local.status == 200)
        }
    }

    @Test("a slowloris head is answered 408 and closed at --header-timeout; an idle keep-alive closes at --idle-timeout")
    func slowClientsAreClosed() async throws {
        try await withProxy(arguments: ["--header-timeout", "2", "--idle-timeout", "2"]) { larder, origin in
            origin.setRoute("/x", .text("x"))
            let slow = try RawConnection(host: "127.0.0.1", port: larder.port)
            let started = ContinuousClock.now
            let dripping = Task {
                for byte in "GET \(origin.url("/x")) HTTP/1.1\r\nHost: a\r\nX-Slow: ".utf8 {
                    guard (try? slow.send(String(UnicodeScalar(byte)))) != nil else { return }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            let answer = await slow.readToEnd()
            dripping.cancel()
            #expect(answer.hasPrefix("HTTP/1.1 408"))
            #expect(ContinuousClock.now - started < .seconds(8))

            let idle = try RawConnection(host: "127.0.0.1", port: larder.port)
            try idle.send("GET \(origin.url("/x")) HTTP/1.1\r\nHost: a\r\n\r\n")
            let keptAlive = ContinuousClock.now
            let served = await idle.readToEnd()
            #expect(served.hasPrefix("HTTP/1.1 200"))
            #expect(ContinuousClock.now - keptAlive < .seconds(8))
        }
    }

    @Test("idle sockets at the connection limit do not lock a real client out")
    func connectionLimit() async throws {
        try await withProxy(arguments: ["--max-connections", "40"]) { larder, origin in
            origin.setRoute("/x", .text("served"))
            var idle: [RawConnection] = []
            for _ in 0..<60 {
                idle.append(try RawConnection(host: "127.0.0.1", port: larder.port))
            }
            // The first 40 are admitted; each later one pushes out the longest-waiting, as the
            // real client's connections do.
            for _ in 0..<3 {
                let response = try await Curl.run(origin.url("/x"), proxy: larder.proxyURL)
                #expect(response.status == 200)
                #expect(response.text == "served")
            }
            _ = idle
        }
    }

    @Test("a request body with an overflowing chunk size gets 400, not a dropped connection")
    func overflowingChunkSize() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/form", .text("accepted"))
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send(
                "POST \(origin.url("/form")) HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\nx\r\n0\r\n\r\n"
            )
            let answer = await connection.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")
            let after = try await Curl.run(origin.url("/form"), proxy: larder.proxyURL)
            #expect(after.text == "accepted")
        }
    }

    @Test("a request with more header fields than allowed gets 431")
    func tooManyHeaders() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/x", .text("x"))
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            let headers = (0..<1000).map { "X-H\($0): v\r\n" }.joined()
            try connection.send("GET \(origin.url("/x")) HTTP/1.1\r\nHost: a\r\n\(headers)\r\n")
            let answer = await connection.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 431"))
            #expect(origin.requests().isEmpty)
        }
    }

    /// A name that only starts with `127.` is not loopback.
    @Test("listening beyond loopback without --allow is a usage error (exit 2)", arguments: ["0.0.0.0", "127.example.com"])
    func hostNeedsAllow(host: String) async throws {
        let (status, output) = try await Self.serve(["--host", host])
        #expect(status == 2)
        #expect(output.contains("--allow"))
    }

    @Test("--event-loops outside 1...256 is a usage error (exit 2) that names the option", arguments: ["0", "257", "two"])
    func eventLoopsOutOfRange(count: String) async throws {
        let (status, output) = try await Self.serve(["--event-loops", count])
        #expect(status == 2)
        #expect(output.contains("--event-loops"))
    }

    /// Runs `larder serve --port 0 ARGUMENTS` on a new cache, for arguments it refuses: its exit
    /// status and everything it printed.
    private static func serve(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: LarderProcess.binary)
        process.arguments = ["serve", "--port", "0", "--cache-dir", LarderProcess.temporaryDirectory()] + arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: await onThread { pipe.fileHandleForReading.readDataToEndOfFile() }, as: UTF8.self)
        await onThread { process.waitUntilExit() }
        return (process.terminationStatus, output)
    }

    /// The clients of a local proxy share the machine: by default Larder answers on half the
    /// cores' worth of event loops (see `ServingEventLoops`); `--event-loops` sets the count.
    @Test("clients are answered on half the cores' event loops by default, or on --event-loops of them")
    func eventLoopCount() async throws {
        func eventLoopThreads(_ larder: LarderProcess) -> Int {
            larder.threadNames.filter { $0.hasPrefix("NIO-ELT-") }.count
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        try await withProxy { larder, origin in
            origin.setRoute("/one", .text("ONE"))
            let response = try await Curl.run(origin.url("/one"), proxy: larder.proxyURL)
            #expect(response.text == "ONE")
            #expect(eventLoopThreads(larder) == max(1, cores / 2))
        }
        try await withProxy(arguments: ["--event-loops", "3"]) { larder, origin in
            origin.setRoute("/one", .text("ONE"))
            // Several connections at once, so every loop takes some.
            let responses = try await withThrowingTaskGroup(of: CurlResult.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await Curl.run(origin.url("/one"), proxy: larder.proxyURL) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.text == "ONE" })
            #expect(eventLoopThreads(larder) == 3)
        }
    }

    @Test("malformed requests get 400 (or 431) and the connection closes; the proxy keeps serving")
    func malformedRequests() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/ok", .text("ok"))
            let cases = [
                "GARBAGE\r\n\r\n",
                "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "POST http://a.example/ HTTP/1.1\r\nHost: a.example\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello",
                "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n",
                "GET ftp://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n",
                "GET /elsewhere HTTP/1.1\r\nHost: evil.example\r\n\r\n",
            ]
            for request in cases {
                let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
                try connection.send(request)
                let answer = await connection.readToEnd()
                #expect(
                    answer.hasPrefix("HTTP/1.1 400") || answer.hasPrefix("HTTP/1.1 431"), "\(request.prefix(60)) -> \(answer.prefix(80))")
            }
            let after = try await Curl.run(origin.url("/ok"), proxy: larder.proxyURL)
            #expect(after.text == "ok")
        }
    }

    @Test("pipelined requests on one connection are answered in order")
    func pipelining() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/first", .text("FIRST", faults: [.delayHead(.milliseconds(300))]))
            origin.setRoute("/second", .text("SECOND"))
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send(
                "GET \(origin.url("/first")) HTTP/1.1\r\nHost: x\r\n\r\nGET \(origin.url("/second")) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            let answer = await connection.readToEnd()
            let first = try #require(answer.range(of: "FIRST"))
            let second = try #require(answer.range(of: "SECOND"))
            #expect(first.lowerBound < second.lowerBound)
            #expect(answer.components(separatedBy: "HTTP/1.1 200").count == 3)
        }
    }

    @Test("hits answered on the event loop keep pipelined order behind a slow miss, and are counted")
    func immediateHitsKeepOrder() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/slow", .text("SLOW", faults: [.delayHead(.milliseconds(400))]))
            origin.setRoute("/hot", .text("HOT", headers: [("Cache-Control", "max-age=3600")]))
            _ = try await Curl.run(origin.url("/hot"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            // The first hit loads the lookup and the body into memory; later ones need no task.
            let warm = try await Curl.run(origin.url("/hot"), proxy: larder.proxyURL)
            #expect(warm.header("cache-status")?.hasPrefix("larder; hit; ttl=") == true)

            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            let hot = "GET \(origin.url("/hot")) HTTP/1.1\r\nHost: x\r\n\r\n"
            try connection.send(
                "GET \(origin.url("/slow")) HTTP/1.1\r\nHost: x\r\n\r\n" + hot + hot
                    + "GET \(origin.url("/hot")) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            let answer = await connection.readToEnd()
            let slow = try #require(answer.range(of: "SLOW"))
            let firstHot = try #require(answer.range(of: "HOT", range: slow.upperBound..<answer.endIndex))
            #expect(slow.lowerBound < firstHot.lowerBound)
            #expect(answer.components(separatedBy: "HTTP/1.1 200").count == 5)
            #expect(answer.components(separatedBy: "Cache-Status: larder; hit; ttl=").count == 4)
            #expect(answer.lowercased().contains("\r\nage: "))
            #expect(origin.requestCount("/hot") == 1)

            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let requests = (try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])?["requests"] as? [String: Any]
            #expect(requests?["hits"] as? Int == 4)
        }
    }

    @Test("the proxy's own pages answer at its address and are never forwarded")
    func ownPages() async throws {
        try await withProxy { larder, origin in
            let landing = try await Curl.run(larder.proxyURL + "/", proxy: nil)
            #expect(landing.status == 200)
            #expect(landing.text.contains("Larder is running"))
            let pac = try await Curl.run(larder.proxyURL + "/proxy.pac", proxy: nil)
            #expect(pac.text.contains("PROXY 127.0.0.1:\(larder.port)"))
            let viaProxy = try await Curl.run("http://localhost:\(larder.port)/proxy.pac", proxy: larder.proxyURL)
            #expect(viaProxy.status == 200)
            #expect(origin.requests().isEmpty)
        }
    }

    @Test("SIGTERM lets an in-flight response finish, then larder exits 0")
    func gracefulShutdown() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/slow.bin", TestResponse(body: .generated(length: 2_000_000), faults: [.chunkSize(100_000), .delayChunks(.milliseconds(100))]))
        // A grace far longer than the body needs even on a loaded machine: this checks finishing, not the limit.
        let larder = try await LarderProcess(serve: ["--shutdown-grace", "120"])
        let download = Task { try await Curl.run(origin.url("/slow.bin"), proxy: larder.proxyURL) }
        // Signal only once the response is under way.
        for _ in 0..<500 where origin.requestCount("/slow.bin") == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))
        let status = await larder.stop(signal: SIGTERM, timeout: .seconds(120))
        let result = try await download.value
        #expect(status == 0)
        #expect(result.exitCode == 0, "curl: \(result.stderr)\nlarder log:\n\(larder.log)")
        #expect(Bytes(result.body) == Bytes(GeneratedBody.bytes(0..<2_000_000)))
        #expect(larder.log.contains("shutting down"))
        try? FileManager.default.removeItem(atPath: larder.cacheDirectory)
        try await origin.stop()
    }

    @Test("SIGTERM cuts a response still running when --shutdown-grace ends, and larder exits")
    func shutdownGraceEnds() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/endless.bin", TestResponse(body: .generated(length: 2_000_000), faults: [.chunkSize(20_000), .delayChunks(.seconds(1))]))
        let larder = try await LarderProcess(serve: ["--shutdown-grace", "1"])
        let download = Task { try await Curl.run(origin.url("/endless.bin"), proxy: larder.proxyURL) }
        for _ in 0..<500 where origin.requestCount("/endless.bin") == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        // The body needs 100 s; larder must give up on it long before, well within the stop timeout.
        let status = await larder.stop(signal: SIGTERM, timeout: .seconds(60))
        let result = try await download.value
        #expect(!larder.process.isRunning)
        #expect(status == 0, "larder log:\n\(larder.log)")
        #expect(result.exitCode != 0, "the cut response must not look complete to curl")
        #expect(result.body.count < 2_000_000)
        try? FileManager.default.removeItem(atPath: larder.cacheDirectory)
        try await origin.stop()
    }
}
