import Foundation
import LarderTestSupport
import Synchronization
import Testing

/// Writes queued while their origin cannot answer, and their replay, through the binary
/// (docs/SERVING.md, "Queued writes").
@Suite("End to end: queued writes")
struct WriteQueueTests {
    /// One write as the test sends it and expects the origin to receive it.
    struct Write: Equatable {
        var method: String
        var path: String
        var body: [UInt8]
    }

    /// A config file with `queue` set to `queue` (JSON), in `directory`.
    private static func config(_ queue: String, in directory: String) throws -> String {
        let path = directory + "/larder.json"
        try #"{"queue": \#(queue)}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Sends `write` through `larder` to `origin` with curl; the body goes from a file, byte for byte.
    private static func send(_ write: Write, to origin: TestOrigin, through larder: LarderProcess, headers: [String] = []) async throws
        -> CurlResult
    {
        let file = LarderProcess.temporaryDirectory("write-body") + "/body"
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        try Data(write.body).write(to: URL(fileURLWithPath: file))
        let arguments = ["-X", write.method, "--data-binary", "@" + file] + headers.flatMap { ["-H", $0] }
        return try await Curl.run(origin.url(write.path), proxy: larder.proxyURL, arguments: arguments)
    }

    /// Checks that `result` is the default answer to a queued write and returns its id.
    private static func queuedID(_ result: CurlResult, sourceLocation: SourceLocation = #_sourceLocation) -> Int64? {
        #expect(result.status == 202, sourceLocation: sourceLocation)
        #expect(result.header("cache-status") == "larder; fwd=method; detail=queued", sourceLocation: sourceLocation)
        #expect(result.header("content-type") == "application/json", sourceLocation: sourceLocation)
        guard let id = result.header("larder-queued").flatMap({ Int64($0) }) else {
            Issue.record("no Larder-Queued id: \(result.status) \(result.text)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(result.text == #"{"queued":true,"id":"\#(id)"}"#, sourceLocation: sourceLocation)
        return id
    }

    /// The bodies of the queued writes kept on disk (pending or dead-lettered).
    private static func queueFiles(_ cacheDirectory: String) -> [String] {
        filesUnder(cacheDirectory + "/queue").filter { !$0.contains("tmp") }
    }

    @Test("50 POSTs and PATCHes queued with the origin down survive two SIGKILLs and reach it in order, once each, byte for byte")
    func fiftyWritesSurviveKills() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/items/**", "methods": ["POST", "PATCH"]}]}"#, in: directory)

        var writes: [Write] = []
        for index in 0..<50 {
            let body: [UInt8] =
                index % 5 == 4
                ? (0..<300).map { UInt8(($0 * 7 + index) % 256) }  // binary: every byte value, NULs and CRLFs included
                : Array(#"{"item":\#(index),"note":"write \#(index)"}"#.utf8)
            writes.append(
                index % 2 == 0
                    ? Write(method: "POST", path: "/items/new", body: body) : Write(method: "PATCH", path: "/items/\(index)", body: body))
        }
        // The origin refuses the first delivery of write 7 once with a 503: a retry must carry the same key.
        let refusedOnce = Mutex(false)
        let origin = try await TestOrigin.start()
        for path in Set(writes.map(\.path)) {
            origin.setRoute(
                path,
                .dynamic { request in
                    if request.path == "/items/7",
                        refusedOnce.withLock({ refused in
                            defer { refused = true }
                            return !refused
                        })
                    {
                        return .text("busy", status: 503)
                    }
                    return .text("ok", status: 201)
                })
        }
        try await origin.stop()

        let cacheDirectory = LarderProcess.temporaryDirectory()
        var larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: cacheDirectory)
        do {
            var ids: [Int64] = []
            for (batch, range) in [0..<17, 17..<34, 34..<50].enumerated() {
                if batch > 0 {
                    await larder.stop(signal: SIGKILL)
                    larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: cacheDirectory)
                }
                for write in writes[range] {
                    let sent = try await Self.send(
                        write, to: origin, through: larder, headers: ["Proxy-Authorization: Basic dXNlcjpwYXNz", "X-App: 1"])
                    if let id = Self.queuedID(sent) { ids.append(id) }
                }
            }
            #expect(ids == ids.sorted() && Set(ids).count == 50)
            #expect(origin.requests().isEmpty)

            try await origin.restart()
            let delivered = await eventually(within: 60) { origin.requests().count >= 51 }
            #expect(delivered, "the origin received \(origin.requests().count) of 51 requests")
            // Nothing more comes: each write was delivered once.
            try await Task.sleep(for: .seconds(2))
            var received = origin.requests()
            #expect(received.count == 51)
            let refused = try #require(received.firstIndex { $0.path == "/items/7" })
            let firstAttempt = received.remove(at: refused)
            #expect(received.map { Write(method: $0.method, path: $0.path, body: $0.body) } == writes)
            let keys = received.compactMap { $0.header("idempotency-key") }
            #expect(keys.count == 50 && Set(keys).count == 50)
            #expect(firstAttempt.header("idempotency-key") == received.first { $0.path == "/items/7" }?.header("idempotency-key"))
            // Stored as sent: the app's own headers, never the proxy credentials.
            #expect(received.allSatisfy { $0.header("x-app") == "1" && $0.header("proxy-authorization") == nil })
            #expect(Self.queueFiles(cacheDirectory).isEmpty)
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
        try? await origin.stop()
    }

    @Test("the seed's update/complete flow offline: a newer update replaces an older one, the completion supersedes its game's updates")
    func supersedeAndTerminal() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(
            #"""
            {"routes": [
              {"regex": "/graphql$", "methods": ["POST"], "when": {"field": "operationName", "equals": "updateGameplay"},
               "supersedeKey": {"json": "variables.gameplayID"}, "group": "gameplay"},
              {"regex": "/graphql$", "methods": ["POST"], "when": {"field": "operationName", "equals": "completeGameplay"},
               "supersedeKey": {"json": "variables.gameplayID"}, "group": "gameplay", "terminal": true}
            ]}
            """#, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/graphql", .text(#"{"data":{}}"#, contentType: "application/json"))
        try await origin.stop()

        func mutation(_ operation: String, game: String, elapsed: Int) -> Write {
            let body =
                #"{"operationName":"\#(operation)","query":"mutation { x }","variables":{"gameplayID":"\#(game)","elapsed":\#(elapsed)}}"#
            return Write(method: "POST", path: "/graphql", body: Array(body.utf8))
        }
        let g1Update1 = mutation("updateGameplay", game: "g1", elapsed: 10)
        let g2Update1 = mutation("updateGameplay", game: "g2", elapsed: 5)
        let g1Update2 = mutation("updateGameplay", game: "g1", elapsed: 20)
        let g1Complete = mutation("completeGameplay", game: "g1", elapsed: 30)
        let g2Update2 = mutation("updateGameplay", game: "g2", elapsed: 15)

        try await withLarder(["--config", config]) { larder in
            for write in [g1Update1, g2Update1, g1Update2, g1Complete, g2Update2] {
                _ = Self.queuedID(try await Self.send(write, to: origin, through: larder, headers: ["Content-Type: application/json"]))
            }
            // A query on the same URL is no write a rule covers: it is forwarded, and fails as any request.
            let query = try await Self.send(
                Write(method: "POST", path: "/graphql", body: Array(#"{"operationName":"today","query":"{ today }"}"#.utf8)), to: origin,
                through: larder)
            #expect(query.status == 502 || query.status == 504)
            #expect(query.header("larder-queued") == nil)

            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requests().count >= 2 })
            try await Task.sleep(for: .seconds(2))
            #expect(origin.requests().map { Write(method: $0.method, path: $0.path, body: $0.body) } == [g1Complete, g2Update2])
        }
        try? await origin.stop()
    }

    @Test(
        "a 400 dead-letters its write, kept and never retried, and the writes behind it go on; larder queue lists, exports, retries and drops it"
    )
    func deadLetter() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/api/**"}]}"#, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/api/bad", .text("no such thing", status: 400))
        origin.setRoute("/api/good", .text("ok"))
        try await origin.stop()

        try await withLarder(["--config", config]) { larder in
            let bad = try #require(
                Self.queuedID(
                    try await Self.send(
                        Write(method: "PUT", path: "/api/bad", body: Array("1".utf8)), to: origin, through: larder,
                        headers: ["Authorization: Bearer s3cret"])))
            _ = Self.queuedID(
                try await Self.send(Write(method: "DELETE", path: "/api/good", body: Array("2".utf8)), to: origin, through: larder))
            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requestCount("/api/good") == 1 })
            try await Task.sleep(for: .seconds(4))
            #expect(origin.requests().map(\.path) == ["/api/bad", "/api/good"])
            // The dead-lettered write's body stays on disk; the delivered one's is gone.
            #expect(Self.queueFiles(larder.cacheDirectory).count == 1)
            #expect(larder.log.contains("dead-lettered"))

            // Shown by the proxy and by `larder queue`, which also exports, retries and drops it.
            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
            #expect((json?["writeQueue"] as? [String: Any])?["deadLetters"] as? Int == 1)
            let cache = ["--cache-dir", larder.cacheDirectory]
            let list = try await LarderCLI.run(["queue", "list"] + cache)
            #expect(list.stdout.contains("#\(bad) dead-letter PUT \(origin.url("/api/bad"))"))
            #expect(list.stdout.contains("the origin answered 400"))
            let exported = larder.cacheDirectory + "/../export.jsonl"
            #expect(try await LarderCLI.run(["queue", "export", "--output", exported] + cache).exitCode == 0)
            let line = try #require(try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n").first)
            let write = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(write["method"] as? String == "PUT")
            #expect(write["body"] as? String == Data("1".utf8).base64EncodedString())
            #expect((write["headers"] as? [[String]])?.contains { $0.first?.lowercased() == "idempotency-key" } == true)
            #expect(
                (write["headers"] as? [[String]])?.contains { $0.first == "Authorization" } == false, "a dead letter keeps no credentials")
            let permissions = try FileManager.default.attributesOfItem(atPath: exported)[.posixPermissions] as? Int
            #expect(permissions == 0o600)

            #expect(try await LarderCLI.run(["queue", "retry", String(bad)] + cache).exitCode == 0)
            #expect(await eventually(within: 60) { origin.requestCount("/api/bad") == 2 }, "retried once more, and dead-lettered again")
            #expect(try await LarderCLI.run(["queue", "drop", String(bad)] + cache).stdout.contains("Dropped write \(bad)"))
            #expect(try await LarderCLI.run(["queue", "list"] + cache).stdout == "Queued writes: none\n")
            #expect(try await LarderCLI.run(["queue", "drop", String(bad)] + cache).exitCode != 0)
        }
        try? await origin.stop()
    }

    @Test("a 503 with queueOn5xx is queued and retried with growing gaps (the seed's back-off)")
    func backoff() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/save", "queueOn5xx": true}]}"#, in: directory)
        let times = Mutex<[ContinuousClock.Instant]>([])
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/save",
            .dynamic { _ in
                times.withLock { $0.append(.now) }
                return .text("overloaded", status: 503)
            })

        try await withLarder(["--config", config]) { larder in
            _ = Self.queuedID(
                try await Self.send(Write(method: "POST", path: "/save", body: Array("state".utf8)), to: origin, through: larder))
            // The first attempt, then four replays: 1.5 s, 2.5 s and 3.5 s apart after the first.
            #expect(await eventually(within: 40) { times.withLock { $0.count } >= 5 })
            let instants = times.withLock { $0 }
            let gaps = zip(instants.dropFirst(2), instants.dropFirst(1)).map { ($0 - $1) / .milliseconds(1) }
            #expect(gaps.count >= 3)
            // Each gap at least its back-off (1.5, 2.5, 3.5 s, less a margin): a busy machine only
            // makes a replay later, so the bounds hold under load, and since they grow, so does
            // the back-off (a fixed one fails the second and third).
            #expect(gaps.first.map { $0 >= 1200 } == true, "gaps (ms): \(gaps)")
            #expect(zip(gaps, [1200.0, 2200, 3200]).allSatisfy { $0 >= $1 }, "gaps (ms): \(gaps)")
            #expect(Set(origin.requests().compactMap { $0.header("idempotency-key") }).count == 1)
        }
        try? await origin.stop()
    }

    @Test("a write older than the retention is dead-lettered, never delivered, and kept")
    func retention() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(
            #"{"routes": [{"match": "/notes/*"}], "retention": "3s", "retry": {"base": "1s", "step": "0s", "max": "1s"}}"#, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/notes/old", .text("ok"))
        origin.setRoute("/notes/new", .text("ok"))
        try await origin.stop()

        try await withLarder(["--config", config]) { larder in
            _ = Self.queuedID(
                try await Self.send(Write(method: "POST", path: "/notes/old", body: Array("old".utf8)), to: origin, through: larder))
            #expect(await eventually(within: 20) { larder.log.contains("expired") })
            // Retried every second, the young write is delivered well within the retention.
            _ = Self.queuedID(
                try await Self.send(Write(method: "POST", path: "/notes/new", body: Array("new".utf8)), to: origin, through: larder))
            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requestCount("/notes/new") == 1 })
            try await Task.sleep(for: .seconds(2))
            #expect(origin.requests().map(\.path) == ["/notes/new"])
            #expect(Self.queueFiles(larder.cacheDirectory).count == 1)
        }
        try? await origin.stop()
    }

    @Test("two origins: one failing with 503s holds up only its own queue; the other's drains in order")
    func twoOrigins() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/w/*"}]}"#, in: directory)
        let failing = try await TestOrigin.start()
        let working = try await TestOrigin.start()
        failing.setRoute("/w/a", .text("down for maintenance", status: 503))
        failing.setRoute("/w/b", .text("ok"))
        working.setRoute("/w/a", .text("ok"))
        working.setRoute("/w/b", .text("ok"))
        try await failing.stop()
        try await working.stop()

        try await withLarder(["--config", config]) { larder in
            for path in ["/w/a", "/w/b"] {
                for origin in [failing, working] {
                    _ = Self.queuedID(
                        try await Self.send(Write(method: "POST", path: path, body: Array(path.utf8)), to: origin, through: larder))
                }
            }
            try await failing.restart()
            try await working.restart()
            #expect(await eventually(within: 60) { working.requests().count >= 2 && failing.requests().count >= 2 })
            #expect(working.requests().map(\.path) == ["/w/a", "/w/b"])
            // The failing origin's head is retried; what is behind it waits.
            #expect(failing.requests().allSatisfy { $0.path == "/w/a" })
        }
        try? await failing.stop()
        try? await working.stop()
    }

    @Test("an origin that does not answer within the network timeout: the write is queued, and its replay carries the same key")
    func hungOrigin() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/save"}]}"#, in: directory)
        let answered = Mutex(0)
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/save",
            .dynamic { _ in
                let first = answered.withLock { count in
                    count += 1
                    return count == 1
                }
                // The first attempt hangs past the proxy's 3 s network timeout.
                return first ? .text("late", faults: [.delayHead(.seconds(8))]) : .text("saved", status: 201)
            })

        try await withLarder(["--config", config]) { larder in
            let write = Write(method: "POST", path: "/save", body: Array(#"{"level":3}"#.utf8))
            _ = Self.queuedID(try await Self.send(write, to: origin, through: larder))
            #expect(await eventually(within: 60) { origin.requests().count >= 2 })
            try await Task.sleep(for: .seconds(1))
            let received = origin.requests()
            #expect(received.map { Write(method: $0.method, path: $0.path, body: $0.body) } == [write, write])
            let keys = received.map { $0.header("idempotency-key") }
            #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1])
        }
        try? await origin.stop()
    }

    @Test("offline mode queues at once (with the route's own answer) and sends nothing until it ends")
    func offlineMode() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(
            #"{"routes": [{"match": "/save", "answer": {"status": 200, "body": {"saved": "later"}}}]}"#, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/save", .text("saved"))

        try await withLarder(["--config", config, "--offline"]) { larder in
            let write = Write(method: "PUT", path: "/save", body: Array("state".utf8))
            // The route's own answer.
            let queued = try await Self.send(write, to: origin, through: larder)
            #expect(queued.status == 200)
            #expect(queued.text == #"{"saved":"later"}"#)
            #expect(queued.header("content-type") == "application/json")
            #expect(queued.header("larder-queued") != nil)
            try await Task.sleep(for: .seconds(2.5))
            #expect(origin.requests().isEmpty)

            let online = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/offline", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-urlencode", "offline=off"])
            #expect(online.status == 303)
            #expect(await eventually(within: 60) { origin.requestCount("/save") == 1 })
            #expect(origin.requests().first?.body == write.body)
        }
        try? await origin.stop()
    }

    @Test("an unreachable origin seen answering another request ends its queue's back-off")
    func connectivityReturns() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A back-off far longer than the test waits: only the origin's answer to /ping can end it.
        let config = try Self.config(
            #"{"routes": [{"match": "/save"}], "retry": {"base": "60s", "step": "0s", "max": "60s"}}"#, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/save", .text("saved", status: 201))
        origin.setRoute("/ping", .text("pong", headers: [("Cache-Control", "no-store")]))
        try await origin.stop()

        try await withLarder(["--config", config]) { larder in
            _ = Self.queuedID(try await Self.send(Write(method: "POST", path: "/save", body: Array("s".utf8)), to: origin, through: larder))
            // The first replay cannot connect either; the origin then waits a minute.
            var attempted = false
            for _ in 0..<200 where !attempted {
                let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
                let queue = (try? JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])?["writeQueue"] as? [String: Any]
                let write = ((queue?["origins"] as? [[String: Any]])?.first?["writes"] as? [[String: Any]])?.first
                attempted = (write?["attempts"] as? Int ?? 0) >= 1 && write?["lastError"] != nil
                if !attempted { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(attempted)
            try await origin.restart()
            try await Task.sleep(for: .seconds(1.5))
            #expect(origin.requestCount("/save") == 0)
            // The proxy's own back-off for the origin ends first; then an answer to the app is seen.
            var pinged = false
            for _ in 0..<60 where !pinged {
                pinged = try await Curl.run(origin.url("/ping"), proxy: larder.proxyURL).status == 200
                if !pinged { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(pinged)
            #expect(await eventually(within: 20) { origin.requestCount("/save") == 1 })
        }
        try? await origin.stop()
    }

    @Test("a write the store cannot keep gets a 503 that says so, never a 2xx")
    func notKept() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/save"}]}"#, in: directory)
        let origin = try await TestOrigin.start()
        try await origin.stop()

        try await withLarder(["--config", config]) { larder in
            // A file where the queue's folder goes: no body can be kept (as root too).
            let queue = larder.cacheDirectory + "/queue"
            try? FileManager.default.removeItem(atPath: queue)
            try Data("in the way".utf8).write(to: URL(fileURLWithPath: queue))
            let write = Write(method: "POST", path: "/save", body: Array("state".utf8))
            let refused = try await Self.send(write, to: origin, through: larder, headers: ["Accept: text/html"])
            #expect(refused.status == 503)
            #expect(refused.header("larder-queued") == nil)
            #expect(refused.text.contains("not kept"))

            try FileManager.default.removeItem(atPath: queue)
            _ = Self.queuedID(try await Self.send(write, to: origin, through: larder))
        }
        try? await origin.stop()
    }

    /// The seed's GraphQL update route: a newer update of a game replaces an older one.
    private static let gameplayRoutes = #"""
        {"routes": [
          {"regex": "/graphql$", "methods": ["POST"], "when": {"field": "operationName", "equals": "updateGameplay"},
           "supersedeKey": {"json": "variables.gameplayID"}, "group": "gameplay"}
        ]}
        """#

    /// An update of `game` to `elapsed`, as a GraphQL POST.
    private static func update(game: String, elapsed: Int) -> Write {
        let body =
            #"{"operationName":"updateGameplay","query":"mutation { x }","variables":{"gameplayID":"\#(game)","elapsed":\#(elapsed)}}"#
        return Write(method: "POST", path: "/graphql", body: Array(body.utf8))
    }

    @Test("a page of another site posting JSON as text/plain neither queues nor replaces the user's save; the user's is delivered")
    func crossSiteWriteNotQueued() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(Self.gameplayRoutes, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/graphql", .text(#"{"data":{}}"#, contentType: "application/json"))
        try await origin.stop()

        let save = Self.update(game: "g1", elapsed: 300)
        let attack = Self.update(game: "g1", elapsed: 0)
        try await withLarder(["--config", config]) { larder in
            // The app's own page saves (a browser sends its Origin and Sec-Fetch-Site).
            _ = Self.queuedID(
                try await Self.send(
                    save, to: origin, through: larder,
                    headers: ["Content-Type: application/json", "Origin: \(origin.baseURL)", "Sec-Fetch-Site: same-origin"]))
            // A hostile page's simple POSTs: text/plain needs no preflight, and the body parses as JSON.
            for headers in [
                ["Content-Type: text/plain;charset=UTF-8", "Origin: https://evil.example", "Sec-Fetch-Site: cross-site"],
                ["Content-Type: text/plain", "Origin: null"],
                ["Content-Type: application/json", "Origin: https://evil.example"],
            ] {
                let refused = try await Self.send(attack, to: origin, through: larder, headers: headers)
                #expect(refused.status == 502 || refused.status == 504, "\(headers): \(refused.status)")
                #expect(refused.header("larder-queued") == nil)
                #expect(
                    refused.header("cache-status")?.contains("write-not-queued-cross-site") == true,
                    "\(refused.header("cache-status") ?? "")")
            }
            #expect(larder.log.contains("write not queued: it comes from a page of another site"))

            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requests().count >= 1 })
            try await Task.sleep(for: .seconds(2))
            #expect(origin.requests().map { Write(method: $0.method, path: $0.path, body: $0.body) } == [save])

            // Online, a cross-site write is forwarded as any write, its answer relayed.
            let forwarded = try await Self.send(
                attack, to: origin, through: larder, headers: ["Content-Type: text/plain", "Origin: https://evil.example"])
            #expect(forwarded.status == 200)
            #expect(forwarded.header("cache-status") == "larder; fwd=method; fwd-status=200; detail=write-not-queued-cross-site")
        }
        try? await origin.stop()
    }

    @Test("a same-site page's update still replaces its older one; text/plain (curl's default form type) is queued but replaces nothing")
    func sameSiteSupersedes() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(Self.gameplayRoutes, in: directory)
        let origin = try await TestOrigin.start()
        origin.setRoute("/graphql", .text(#"{"data":{}}"#, contentType: "application/json"))
        try await origin.stop()

        let first = Self.update(game: "g1", elapsed: 10)
        let second = Self.update(game: "g1", elapsed: 20)
        let plain = Self.update(game: "g1", elapsed: 30)
        try await withLarder(["--config", config]) { larder in
            let sameSite = ["Content-Type: application/json", "Origin: https://www.example", "Sec-Fetch-Site: same-site"]
            _ = Self.queuedID(try await Self.send(first, to: origin, through: larder, headers: sameSite))
            _ = Self.queuedID(try await Self.send(second, to: origin, through: larder, headers: sameSite))
            // No Origin (curl, a native app): queued as before, but its body is not read as JSON.
            _ = Self.queuedID(try await Self.send(plain, to: origin, through: larder, headers: ["Content-Type: text/plain"]))

            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requests().count >= 2 })
            try await Task.sleep(for: .seconds(2))
            #expect(origin.requests().map { Write(method: $0.method, path: $0.path, body: $0.body) } == [second, plain])
        }
        try? await origin.stop()
    }

    @Test("past queue.maxWrites a write gets a 503 naming the limit; the writes queued before it are all delivered")
    func countLimit() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/items/*"}], "maxWrites": 3}"#, in: directory)
        let origin = try await TestOrigin.start()
        let writes = (0..<4).map { Write(method: "POST", path: "/items/\($0)", body: Array("item \($0)".utf8)) }
        for write in writes {
            origin.setRoute(write.path, .text("ok", status: 201))
        }
        try await origin.stop()

        try await withLarder(["--config", config]) { larder in
            for write in writes.prefix(3) {
                _ = Self.queuedID(try await Self.send(write, to: origin, through: larder))
            }
            let refused = try await Self.send(writes[3], to: origin, through: larder, headers: ["Accept: application/json"])
            #expect(refused.status == 503)
            #expect(refused.header("larder-queued") == nil)
            #expect(refused.header("cache-status") == "larder; fwd=method; detail=queue-full")
            let reason = (try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])?["reason"] as? String
            #expect(reason?.contains("it keeps at most 3 writes (queue.maxWrites)") == true, "\(refused.text)")
            #expect(Self.queueFiles(larder.cacheDirectory).count == 3)

            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requests().count >= 3 })
            try await Task.sleep(for: .seconds(2))
            #expect(origin.requests().map { Write(method: $0.method, path: $0.path, body: $0.body) } == Array(writes.prefix(3)))
        }
        try? await origin.stop()
    }

    @Test("/dev/offline with more queued writes than a page: the count, the first 50, and a next page with the rest")
    func pagedDevOffline() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(#"{"routes": [{"match": "/items/*"}]}"#, in: directory)
        let origin = try await TestOrigin.start()

        try await withLarder(["--config", config, "--offline"]) { larder in
            for index in 0..<60 {
                _ = Self.queuedID(
                    try await Self.send(
                        Write(method: "POST", path: "/items/\(index)", body: Array("\(index)".utf8)), to: origin, through: larder))
            }
            // A write's row: its method and URL in one cell (the recent requests list the URL alone).
            func row(_ index: Int) -> String { "POST " + origin.url("/items/\(index)") + "</td>" }
            let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(page.status == 200)
            #expect(page.text.contains("60 pending"))
            #expect(page.text.contains("Showing 50 of 60 writes"))
            #expect(page.text.contains("Queued writes hold 110 B besides, not in this budget, under their own limit of 64.0 MiB."))
            #expect(page.text.contains(row(49)))
            #expect(!page.text.contains(row(50)))
            let next = try #require(
                page.text.firstMatch(of: /href="(\/dev\/offline\?writesAfter=[0-9]+)#queued-writes"/).map { String($0.output.1) })
            let second = try await Curl.run(larder.proxyURL + next, proxy: nil)
            #expect(second.text.contains(row(50)))
            #expect(second.text.contains(row(59)))
            #expect(!second.text.contains(row(49)))
            #expect(!second.text.contains(#"rel="next""#))

            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let queue = (try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])?["writeQueue"] as? [String: Any]
            #expect(queue?["pending"] as? Int == 60)
            #expect(queue?["maxWrites"] as? Int == 1000)
            #expect(queue?["bytes"] as? Int == (0..<60).reduce(0) { $0 + "\($1)".utf8.count })
            #expect(((queue?["origins"] as? [[String: Any]])?.first?["writes"] as? [Any])?.count == 50)
        }
        try? await origin.stop()
    }
}
