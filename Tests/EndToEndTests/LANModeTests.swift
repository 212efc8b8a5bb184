import Foundation
import LarderTestSupport
import Testing

/// `--host ADDRESS --allow CIDR` ("a shared box for a classroom") with real clients on another
/// network: two network namespaces the test creates, each joined to this machine by a veth pair,
/// in 10.213.N.0/24 and 10.213.N+1.0/24 (N from the process id). Larder listens on this
/// machine's address in the first and allows only that network.
///
/// It needs root and `ip` (iproute2), as CI has. Without them it fails saying so, unless
/// `LARDER_SKIP_NETNS=1` is set, which skips it on purpose.
@Suite("End to end: LAN mode with clients in network namespaces", .serialized)
struct LANModeTests {
    /// One client network: a namespace joined to this machine by a veth pair.
    struct ClientNetwork {
        var namespace: String
        var hostInterface: String
        /// This machine's address on the network.
        var hostAddress: String
        /// The client's address.
        var clientAddress: String
        var subnet: String
    }

    /// Runs a command to its end, returning its status and standard output; never throws for a
    /// non-zero status (cleanup runs whatever failed).
    @discardableResult
    static func run(_ arguments: [String]) -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in LarderProcess.proxyVariables {
            environment.removeValue(forKey: name)
        }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            return (-1, "", "\(error)")
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// Creates the namespace and its veth pair, addressed and up, with a default route to this machine.
    static func create(_ network: ClientNetwork) throws {
        let peer = network.hostInterface + "n"
        for command in [
            ["ip", "netns", "add", network.namespace],
            ["ip", "link", "add", network.hostInterface, "type", "veth", "peer", "name", peer],
            ["ip", "link", "set", peer, "netns", network.namespace],
            ["ip", "addr", "add", network.hostAddress + "/24", "dev", network.hostInterface],
            ["ip", "link", "set", network.hostInterface, "up"],
            ["ip", "-n", network.namespace, "addr", "add", network.clientAddress + "/24", "dev", peer],
            ["ip", "-n", network.namespace, "link", "set", peer, "up"],
            ["ip", "-n", network.namespace, "link", "set", "lo", "up"],
            ["ip", "-n", network.namespace, "route", "add", "default", "via", network.hostAddress],
        ] {
            let result = Self.run(command)
            guard result.status == 0 else {
                throw E2EError("\(command.joined(separator: " ")) failed (\(result.status)): \(result.error)")
            }
        }
    }

    /// Removes the namespace (which takes its end of the veth pair, and so the pair) and the host
    /// end if it is still there.
    static func remove(_ network: ClientNetwork) {
        Self.run(["ip", "netns", "del", network.namespace])
        Self.run(["ip", "link", "del", network.hostInterface])
    }

    /// A config file that lets clients on other machines reach `origin`, a test origin on the box's
    /// own loopback (`lan.allowUpstream`).
    static func config(allowing origin: TestOrigin) throws -> String {
        let path = LarderProcess.temporaryDirectory() + "/larder.json"
        try #"{"lan": {"allowUpstream": ["127.0.0.1:\#(origin.port)"]}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `curl` run inside `network`'s namespace: the status of the last answer, its headers and body.
    static func curl(in network: ClientNetwork, _ arguments: [String]) -> (status: Int, head: String, body: String, error: String) {
        let result = Self.run(
            ["ip", "netns", "exec", network.namespace, "curl", "-sS", "--max-time", "20", "-D", "-", "-o", "/dev/stdout"] + arguments)
        let parts = result.output.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"), result.error)
    }

    @Test(
        "allowed clients are served (a proxied fetch and a hit), others get 403 at once; /dev/offline controls only from the allowed network and Larder's own address",
        .enabled(if: ProcessInfo.processInfo.environment["LARDER_SKIP_NETNS"] != "1", "LARDER_SKIP_NETNS=1 skips it")
    )
    func classroom() async throws {
        guard Self.mayCreateNetworks() else { return }
        // Its interfaces would make a page load in a browser test beside it fail.
        try await HostNetworkChanges.shared.whileChanging { try await self.classroomInNamespaces() }
    }

    /// Runs `body` with two client networks created for it, removed after it.
    static func withTwoNetworks(_ body: (ClientNetwork, ClientNetwork) async throws -> Void) async throws {
        let pid = Int(getpid())
        let third = (pid % 120) * 2 + 10
        let first = ClientNetwork(
            namespace: "larder-a-\(pid)", hostInterface: "lra\(pid % 10_000_000)", hostAddress: "10.213.\(third).1",
            clientAddress: "10.213.\(third).2", subnet: "10.213.\(third).0/24")
        let second = ClientNetwork(
            namespace: "larder-b-\(pid)", hostInterface: "lrb\(pid % 10_000_000)", hostAddress: "10.213.\(third + 1).1",
            clientAddress: "10.213.\(third + 1).2", subnet: "10.213.\(third + 1).0/24")
        for network in [first, second] {
            Self.remove(network)
        }
        defer {
            for network in [first, second] {
                Self.remove(network)
            }
        }
        try Self.create(first)
        try Self.create(second)
        try await body(first, second)
    }

    /// Whether this process may create network namespaces; records why not when it may not.
    static func mayCreateNetworks() -> Bool {
        guard getuid() == 0, Self.run(["ip", "-V"]).status == 0 else {
            Issue.record(
                "LAN mode's test needs root and ip (iproute2) to create network namespaces; run it as root (CI does) or set LARDER_SKIP_NETNS=1 to skip it"
            )
            return false
        }
        return true
    }

    private func classroomInNamespaces() async throws {
        try await Self.withTwoNetworks { allowed, other in try await self.classroom(allowed: allowed, other: other) }
    }

    private func classroom(allowed: ClientNetwork, other: ClientNetwork) async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute(
            "/lesson.html", .text("<p>today's lesson</p>", contentType: "text/html", headers: [("Cache-Control", "max-age=600")]))
        // The origin is on the box's own loopback, which the config must open to the classroom.
        let larder = try await LarderProcess(
            serve: ["--host", allowed.hostAddress, "--allow", allowed.subnet, "--config", try Self.config(allowing: origin)])
        defer { Task { await larder.tearDown() } }
        let proxy = "http://\(allowed.hostAddress):\(larder.port)"

        // An allowed client: a proxied fetch, then a hit.
        let first = Self.curl(in: allowed, ["-x", proxy, origin.url("/lesson.html")])
        #expect(first.status == 200, "\(first.error)")
        #expect(first.body == "<p>today's lesson</p>")
        #expect(first.head.lowercased().contains("fwd=uri-miss"), "\(first.head)")
        await entriesStored(in: larder)
        let hit = Self.curl(in: allowed, ["-x", proxy, origin.url("/lesson.html")])
        #expect(hit.status == 200)
        #expect(hit.body == "<p>today's lesson</p>")
        #expect(hit.head.lowercased().contains("cache-status: larder; hit"), "\(hit.head)")
        #expect(origin.requestCount("/lesson.html") == 1)

        // A client on the other network reaches the same address and is answered 403 at once.
        let refused = Self.curl(in: other, ["-x", proxy, origin.url("/lesson.html")])
        #expect(refused.status == 403, "\(refused.head) \(refused.error)")
        #expect(refused.body.contains("--allow"), "\(refused.body)")
        #expect(origin.requestCount("/lesson.html") == 1)

        // Controls: from the allowed network with Larder's own address as Origin; never from a
        // page elsewhere, never from the other network.
        let control = proxy + "/dev/offline/actions/offline"
        let foreign = Self.curl(in: allowed, ["-X", "POST", "-H", "Origin: http://games.example", "--data", "offline=on", control])
        #expect(foreign.status == 403, "\(foreign.head)")
        let fromOther = Self.curl(in: other, ["-X", "POST", "-H", "Origin: \(proxy)", "--data", "offline=on", control])
        #expect(fromOther.status == 403, "\(fromOther.head)")
        // A page on the allowed client's own localhost at Larder's port: that is the client's
        // machine, not Larder, so neither the controls nor the precache API take it as Larder's.
        for localhost in ["http://127.0.0.1:\(larder.port)", "http://localhost:\(larder.port)"] {
            let fromItsLocalhost = Self.curl(in: allowed, ["-X", "POST", "-H", "Origin: \(localhost)", "--data", "offline=on", control])
            #expect(fromItsLocalhost.status == 403, "\(localhost): \(fromItsLocalhost.head)")
            let precache = Self.curl(
                in: allowed,
                [
                    "-X", "POST", "-H", "Origin: \(localhost)", "-H", "Content-Type: application/json",
                    "--data", "{\"urls\": [\"\(origin.url("/lesson.html"))\"]}", proxy + "/dev/offline/precache",
                ])
            #expect(precache.status == 403, "\(localhost): \(precache.head) \(precache.body)")
        }
        let offlineBefore = Self.curl(in: allowed, ["-x", proxy, origin.url("/not-cached.html")])
        #expect(offlineBefore.status == 404, "online: the origin's own 404 (\(offlineBefore.head))")

        let own = Self.curl(in: allowed, ["-X", "POST", "-H", "Origin: \(proxy)", "--data", "offline=on", control])
        #expect(own.status == 303, "\(own.head)")
        let offline = Self.curl(in: allowed, ["-x", proxy, origin.url("/never-fetched.html")])
        #expect(offline.status == 504, "offline mode is on: \(offline.head)")
        #expect(origin.requestCount("/never-fetched.html") == 0)
        let cached = Self.curl(in: allowed, ["-x", proxy, origin.url("/lesson.html")])
        #expect(cached.body == "<p>today's lesson</p>")
    }

    @Test(
        "one pupil's logged-in and private pages never answer another pupil or the box's own user, online or offline; each pupil keeps their own",
        .enabled(if: ProcessInfo.processInfo.environment["LARDER_SKIP_NETNS"] != "1", "LARDER_SKIP_NETNS=1 skips it")
    )
    func privatePagesStayTheirs() async throws {
        guard Self.mayCreateNetworks() else { return }
        try await HostNetworkChanges.shared.whileChanging {
            try await Self.withTwoNetworks { alice, bob in try await self.privatePages(alice: alice, bob: bob) }
        }
    }

    private func privatePages(alice: ClientNetwork, bob: ClientNetwork) async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        // Each page names the cookie it was asked with: a leak shows as another pupil's name.
        for (path, cacheControl) in [("/grades.html", "private, max-age=600"), ("/notes.html", "private, no-cache")] {
            origin.setRoute(
                path,
                .dynamic { request in
                    let cookie = request.headers.first { $0.name.lowercased() == "cookie" }?.value ?? "nobody"
                    return .text("<p>\(path) of \(cookie)</p>", contentType: "text/html", headers: [("Cache-Control", cacheControl)])
                })
        }
        let larder = try await LarderProcess(
            serve: [
                "--host", alice.hostAddress, "--allow", alice.subnet, "--allow", bob.subnet, "--config", try Self.config(allowing: origin),
            ])
        defer { Task { await larder.tearDown() } }
        let proxy = "http://\(alice.hostAddress):\(larder.port)"
        let grades = origin.url("/grades.html")
        let notes = origin.url("/notes.html")

        let aliceFirst = Self.curl(in: alice, ["-x", proxy, "-H", "Cookie: pupil=alice", grades])
        #expect(aliceFirst.body == "<p>/grades.html of pupil=alice</p>", "\(aliceFirst.head) \(aliceFirst.error)")
        await entriesStored(in: larder)
        let aliceAgain = Self.curl(in: alice, ["-x", proxy, "-H", "Cookie: pupil=alice", grades])
        #expect(aliceAgain.body == "<p>/grades.html of pupil=alice</p>")
        #expect(aliceAgain.head.lowercased().contains("cache-status: larder; hit"), "her own page is a hit: \(aliceAgain.head)")
        #expect(origin.requestCount("/grades.html") == 1)

        // Bob, with no cookie, then with his own: never Alice's page, always the origin's answer to him.
        let bobAnonymous = Self.curl(in: bob, ["-x", proxy, grades])
        #expect(bobAnonymous.body == "<p>/grades.html of nobody</p>", "\(bobAnonymous.head)")
        let bobOwn = Self.curl(in: bob, ["-x", proxy, "-H", "Cookie: pupil=bob", grades])
        #expect(bobOwn.body == "<p>/grades.html of pupil=bob</p>", "\(bobOwn.head)")
        // Another login on Alice's machine is not Alice.
        let otherLogin = Self.curl(in: alice, ["-x", proxy, "-H", "Cookie: pupil=mallory", grades])
        #expect(otherLogin.body == "<p>/grades.html of pupil=mallory</p>", "\(otherLogin.head)")
        #expect(origin.requestCount("/grades.html") == 4)

        let aliceNotes = Self.curl(in: alice, ["-x", proxy, "-H", "Cookie: pupil=alice", notes])
        #expect(aliceNotes.body == "<p>/notes.html of pupil=alice</p>")
        await entriesStored(in: larder, count: 5)

        // The box goes offline: Alice still has her own pages; nobody else gets them.
        try await origin.stop()
        let aliceOffline = Self.curl(in: alice, ["-x", proxy, "-H", "Cookie: pupil=alice", notes])
        #expect(aliceOffline.status == 200, "\(aliceOffline.head)")
        #expect(aliceOffline.body == "<p>/notes.html of pupil=alice</p>")
        for (client, cookie) in [(bob, nil), (bob, "pupil=bob"), (alice, nil)] as [(ClientNetwork, String?)] {
            for url in [grades, notes] {
                let answer = Self.curl(in: client, ["-x", proxy] + (cookie.map { ["-H", "Cookie: \($0)"] } ?? []) + [url])
                #expect(
                    !answer.body.contains("alice"), "\(client.namespace) \(cookie ?? "no cookie") \(url): \(answer.head) \(answer.body)")
            }
        }
        // The box's own user, from its own address.
        let boxUser = try await Curl.run(notes, proxy: proxy)
        #expect(!String(decoding: boxUser.body, as: UTF8.self).contains("alice"), "the box's own user: \(boxUser.status)")
    }

    @Test(
        "a pupil cannot make Larder fetch, precache, tunnel to or open a WebSocket to the box's own loopback (literal, localhost, or an address spelled as a number), unless the config lists it; the box's own user still can",
        .enabled(if: ProcessInfo.processInfo.environment["LARDER_SKIP_NETNS"] != "1", "LARDER_SKIP_NETNS=1 skips it")
    )
    func boxLoopbackIsTheBoxs() async throws {
        guard Self.mayCreateNetworks() else { return }
        try await HostNetworkChanges.shared.whileChanging {
            try await Self.withTwoNetworks { pupil, _ in try await self.boxLoopback(pupil: pupil) }
        }
    }

    private func boxLoopback(pupil: ClientNetwork) async throws {
        // A service of the box's own, on loopback only: what a pupil must never reach through Larder.
        let admin = try await TestOrigin.start()
        defer { Task { try? await admin.stop() } }
        admin.setRoute("/internal/box-admin", .text("box admin", headers: [("Cache-Control", "max-age=600")]))
        admin.setRoute("/internal/box-admin.html", .text("<p>box admin</p>", contentType: "text/html"))
        admin.setRoute("/internal/save", .text("saved"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"queue": {"routes": [{"match": "http://2130706433:\#(admin.port)/internal/save"}]}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        // Every address: the pupil comes from the classroom's network, the box's own user on loopback.
        let larder = try await LarderProcess(serve: ["--host", "0.0.0.0", "--allow", pupil.subnet, "--config", config])
        defer { Task { await larder.tearDown() } }
        let proxy = "http://\(pupil.hostAddress):\(larder.port)"
        let port = admin.port

        // The box's own user reads it (and so it is stored): a pupil still gets none of it.
        let boxUser = try await Curl.run(admin.url("/internal/box-admin"), proxy: larder.proxyURL)
        #expect(boxUser.status == 200)
        await entriesStored(in: larder)
        let named = [
            "http://127.0.0.1:\(port)/internal/box-admin", "http://localhost:\(port)/internal/box-admin",
            "http://127.9.9.9:\(port)/internal/box-admin", "http://[::1]:\(port)/internal/box-admin",
        ]
        for url in named {
            let answer = Self.curl(in: pupil, ["-x", proxy, url])
            #expect(answer.status == 403, "\(url): \(answer.head) \(answer.body) \(answer.error)")
            #expect(!answer.body.contains("box admin"), "\(url): \(answer.body)")
            #expect(answer.body.contains("lan.allowUpstream"), "the refusal says how to open it: \(answer.body)")
        }
        // An address spelled as a number is known only when connected to: refused before a byte is sent.
        for url in ["http://2130706433:\(port)/internal/box-admin", "http://0x7f000001:\(port)/internal/box-admin"] {
            let answer = Self.curl(in: pupil, ["-x", proxy, "--request-target", url, "http://example.test/"])
            #expect(answer.status == 403, "\(url): \(answer.head) \(answer.error)")
            #expect(answer.head.lowercased().contains("detail=forbidden-address"), "refused when connected to: \(answer.head)")
            #expect(!answer.body.contains("box admin"), "\(url): \(answer.body)")
        }
        // A write a queue route covers, to an address known only when connected to: refused, not
        // queued to be sent later.
        // (curl would write the number as 127.0.0.1; the request target keeps it as sent.)
        let write = Self.curl(
            in: pupil,
            [
                "-x", proxy, "-X", "POST", "--data", "x=1", "--request-target", "http://2130706433:\(port)/internal/save",
                "http://example.test/",
            ])
        #expect(write.status == 403, "\(write.head) \(write.body)")
        #expect(!write.head.lowercased().contains("larder-queued"), "\(write.head)")
        #expect(admin.requestCount("/internal/save") == 0)
        // A tunnel and a WebSocket to it.
        let tunnel = Self.curl(in: pupil, ["-p", "-x", proxy, "http://127.0.0.1:\(port)/internal/box-admin"])
        #expect(!tunnel.body.contains("box admin"), "\(tunnel.head) \(tunnel.body)")
        #expect(tunnel.head.contains(" 403"), "\(tunnel.head)")
        let socket = Self.curl(
            in: pupil,
            [
                "-x", proxy, "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
                "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "http://localhost:\(port)/live",
            ])
        #expect(socket.status == 403, "\(socket.head)")
        // A precache job a pupil submits, with no Origin as curl sends: refused, nothing fetched.
        let precache = Self.curl(
            in: pupil,
            [
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data", "{\"urls\": [\"http://127.0.0.1:\(port)/internal/box-admin.html\"]}", proxy + "/dev/offline/precache",
            ])
        #expect(precache.status == 403, "\(precache.head) \(precache.body)")
        #expect(admin.requestCount("/internal/box-admin.html") == 0)
        #expect(admin.requestCount("/internal/box-admin") == 1, "only the box's own user's request reached it")
    }

    @Test(
        "two pupils save the same essay id while the origin is down: each save is kept and delivered, one pupil's replaces only her own older one, and neither can drop the other's",
        .enabled(if: ProcessInfo.processInfo.environment["LARDER_SKIP_NETNS"] != "1", "LARDER_SKIP_NETNS=1 skips it")
    )
    func queuedWritesStayTheirs() async throws {
        guard Self.mayCreateNetworks() else { return }
        try await HostNetworkChanges.shared.whileChanging {
            try await Self.withTwoNetworks { alice, bob in try await self.queuedWrites(alice: alice, bob: bob) }
        }
    }

    private func queuedWrites(alice: ClientNetwork, bob: ClientNetwork) async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        // The origin is on the box's own loopback, which the config opens to the classroom.
        try #"""
        {"queue": {"routes": [{"match": "/save", "methods": ["POST"], "supersedeKey": {"json": "id"}}]},
         "lan": {"allowUpstream": ["127.0.0.1:\#(origin.port)"]}}
        """#
        .write(toFile: config, atomically: true, encoding: .utf8)
        origin.setRoute("/save", .text("saved", status: 201))
        try await origin.stop()
        let larder = try await LarderProcess(
            serve: ["--host", alice.hostAddress, "--allow", alice.subnet, "--allow", bob.subnet, "--config", config])
        defer { Task { await larder.tearDown() } }
        let proxy = "http://\(alice.hostAddress):\(larder.port)"

        func save(_ client: ClientNetwork, cookie: String, text: String) -> Int64? {
            let answer = Self.curl(
                in: client,
                [
                    "-x", proxy, "-H", "Cookie: \(cookie)", "-H", "Content-Type: application/json",
                    "--data", #"{"id":"essay","text":"\#(text)"}"#, origin.url("/save"),
                ])
            #expect(answer.status == 202, "\(text): \(answer.head) \(answer.body) \(answer.error)")
            return answer.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("larder-queued:") }
                .flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        }
        // Alice's draft is replaced by her final text; Bob's save of the same id is his own.
        _ = save(alice, cookie: "pupil=alice", text: "A-DRAFT")
        let aliceFinal = try #require(save(alice, cookie: "pupil=alice", text: "A-FINAL"))
        _ = save(bob, cookie: "pupil=bob", text: "B-FINAL")

        // Bob cannot drop Alice's save from the box's own page, nor resend it.
        for control in ["drop-write", "retry-write"] {
            let refused = Self.curl(
                in: bob, ["-X", "POST", "-H", "Origin: \(proxy)", "--data", "id=\(aliceFinal)", proxy + "/dev/offline/actions/" + control])
            #expect(refused.status == 403, "\(control): \(refused.head)")
        }

        try await origin.restart()
        let delivered = await eventually(within: 60) { origin.requests("/save").count >= 2 }
        #expect(delivered, "the origin received \(origin.requests("/save").count) of 2 saves")
        try await Task.sleep(for: .seconds(2))
        let texts = origin.requests("/save").map { String(decoding: $0.body, as: UTF8.self) }
        #expect(texts == [#"{"id":"essay","text":"A-FINAL"}"#, #"{"id":"essay","text":"B-FINAL"}"#], "\(larder.log)")
    }
}
