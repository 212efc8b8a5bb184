import Foundation
import LarderEmbedded
import LarderProxy
import LarderTestSupport
import LarderUpstream
import Testing

/// `Larder` as an app uses it: started in this process on a free port over a temporary cache,
/// fetched through with real sockets, stopped.
@Suite("Larder embedded in a process")
struct LarderTests {
    @Test("start on port 0 listens on a free loopback port; fetches go through it, are stored, and the status counts them")
    func serveAndStatus() async throws {
        try await withLarder { larder, port, origin in
            origin.setRoute("/page", .text("hello from the origin", headers: [("Cache-Control", "max-age=600")]))
            #expect(port > 0)

            let first = try await ProxiedGet.fetch(origin.url("/page"), proxyPort: port)
            #expect(first.status == 200)
            #expect(String(decoding: first.body, as: UTF8.self) == "hello from the origin")
            let stored = try await entriesStored(larder, count: 1)
            #expect(stored.store.entries == 1)
            #expect(stored.store.bodyBytes == Int64("hello from the origin".utf8.count))

            let second = try await ProxiedGet.fetch(origin.url("/page"), proxyPort: port)
            #expect(String(decoding: second.body, as: UTF8.self) == "hello from the origin")
            #expect(second.headers.first(name: "Cache-Status")?.contains("hit") == true)
            #expect(origin.requestCount("/page") == 1)

            let status = try await larder.status()
            #expect(status.host == "127.0.0.1")
            #expect(status.port == port)
            #expect(status.proxyURL == "http://127.0.0.1:\(port)")
            #expect(status.answers[.miss] == 1)
            #expect(status.answers[.hit] == 1)
            #expect(status.offline == false)
            let caPath = try #require(status.certificateAuthorityPath)
            #expect(try String(contentsOfFile: caPath, encoding: .utf8).contains("BEGIN CERTIFICATE"))
        }
    }

    @Test("stop releases the port and closes the index; the same Larder starts again on that port with what it stored")
    func stopReleasesThePort() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let origin = try await TestOrigin.start()
        origin.setRoute("/kept", .text("kept", headers: [("Cache-Control", "max-age=600")]))
        let larder = Larder(configuration: .init(cacheDirectory: directory))
        let port = try await larder.start()
        _ = try await ProxiedGet.fetch(origin.url("/kept"), proxyPort: port)
        _ = try await entriesStored(larder, count: 1)
        try await larder.stop()
        try await origin.stop()

        await #expect(throws: (any Error).self, "nothing listens once stopped") {
            try await ProxiedGet.fetch(origin.url("/kept"), proxyPort: port)
        }
        #expect(throws: LarderError.self) { try larder.setOffline(true) }
        await #expect(throws: LarderError.self) { try await larder.status() }

        // The port is free: a Larder asking for exactly that port gets it.
        var again = larder.configuration
        again.proxy.port = port
        let restarted = Larder(configuration: again)
        #expect(try await restarted.start() == port)
        let status = try await restarted.status()
        #expect(status.store.entries == 1, "what the first run stored is still there")
        try await restarted.stop()
    }

    @Test("stop is graceful: an answer in flight finishes whole and is stored before the index closes")
    func stopFinishesInFlightAnswers() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let origin = try await TestOrigin.start()
        let body = [UInt8](repeating: UInt8(ascii: "s"), count: 1000)
        origin.setRoute(
            "/slow",
            TestResponse(
                headers: [("Cache-Control", "max-age=600")], body: .bytes(body),
                faults: [.chunkSize(100), .delayChunks(.milliseconds(100))]))
        // A grace far longer than the answer's second, so a busy machine cannot end it first.
        var configuration = Larder.Configuration(cacheDirectory: directory)
        configuration.shutdownGrace = .seconds(60)
        let larder = Larder(configuration: configuration)
        let port = try await larder.start()
        let fetch = Task { try await ProxiedGet.fetch(origin.url("/slow"), proxyPort: port) }
        while origin.requestCount("/slow") == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await larder.stop()
        let answer = try await fetch.value
        #expect(answer.status == 200)
        #expect(answer.body == body)

        let again = Larder(configuration: .init(cacheDirectory: directory))
        let againPort = try await again.start()
        #expect(try await again.status().store.entries == 1, "the answer was stored before the index closed")
        let hit = try await ProxiedGet.fetch(origin.url("/slow"), proxyPort: againPort)
        try await again.stop()
        try await origin.stop()
        #expect(hit.body == body)
        #expect(origin.requestCount("/slow") == 1)
    }

    @Test("starting a running Larder fails with an error naming where it runs; it keeps running")
    func startTwice() async throws {
        try await withLarder { larder, port, origin in
            let error = await #expect(throws: LarderError.self) { try await larder.start() }
            #expect(error?.description == "Larder is already running on 127.0.0.1:\(port); stop it before starting it again")
            origin.setRoute("/still", .text("still serving"))
            let answer = try await ProxiedGet.fetch(origin.url("/still"), proxyPort: port)
            #expect(String(decoding: answer.body, as: UTF8.self) == "still serving")
        }
    }

    @Test("a cache directory that cannot be created fails the start with an error naming it; nothing listens")
    func badCacheDirectory() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/not-a-folder"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let larder = Larder(configuration: .init(cacheDirectory: file + "/cache"))
        let error = await #expect(throws: LarderError.self) { try await larder.start() }
        #expect(error?.description.hasPrefix("cannot open the cache directory \(file)/cache: ") == true, "\(String(describing: error))")
        await #expect(throws: LarderError.self) { try await larder.status() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("x".utf8), "the file in the way is untouched")
    }

    @Test("a port in use fails the start with an error naming the address; the first Larder keeps serving")
    func portInUse() async throws {
        try await withLarder { _, port, origin in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let second = Larder(configuration: .init(cacheDirectory: directory, port: port))
            let error = await #expect(throws: LarderError.self) { try await second.start() }
            #expect(error?.description.hasPrefix("cannot listen on 127.0.0.1:\(port): ") == true, "\(String(describing: error))")
            await #expect(throws: LarderError.self) { try await second.status() }
            origin.setRoute("/first", .text("first"))
            let answer = try await ProxiedGet.fetch(origin.url("/first"), proxyPort: port)
            #expect(answer.status == 200)
        }
    }

    @Test("a host beyond loopback with no allowed networks is refused: Larder is never an open proxy")
    func openProxyRefused() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let larder = Larder(configuration: .init(cacheDirectory: directory, host: "0.0.0.0"))
        let error = await #expect(throws: LarderError.self) { try await larder.start() }
        #expect(error?.description.contains("host 0.0.0.0 listens beyond this machine") == true)
        #expect(!FileManager.default.fileExists(atPath: directory + "/index.sqlite"), "nothing was opened")
    }

    @Test("precache from code: the job runs in the background, its status and report say the game is ready, and offline it is served")
    func precache() async throws {
        try await withLarder { larder, port, origin in
            origin.setRoute(
                "/games/dice/offline.meta.json", .text(#"{"files": ["dice/index.html", "dice/die.js"]}"#, contentType: "application/json"))
            origin.setRoute("/games/dice/index.html", .text("<title>Dice</title>", contentType: "text/html"))
            origin.setRoute("/games/dice/die.js", .text("roll()", contentType: "text/javascript"))

            let job = try larder.precache(lines: ["# the dice game", origin.url("/games/dice")])
            let report = try await larder.precacheReport(job)
            #expect(report.succeeded)
            #expect(report.games.map(\.slug) == ["dice"])
            #expect(report.games.first?.state == .ready)
            let finished = try larder.precacheStatus(job)
            #expect(finished.state == "finished")
            #expect(finished.filesDone == 2)
            let precached = try await larder.status().store.precachedEntries
            #expect(precached == 3, "the two files and the manifest are pinned, not \(precached)")

            try larder.setOffline(true)
            #expect(try await larder.status().offline)
            let served = try await ProxiedGet.fetch(origin.url("/games/dice/die.js"), proxyPort: port)
            #expect(String(decoding: served.body, as: UTF8.self) == "roll()")
            #expect(origin.requestCount("/games/dice/die.js") == 1)
        }
    }

    @Test("precache lines that name nothing, and unknown job ids, are errors that say why")
    func precacheErrors() async throws {
        try await withLarder { larder, _, _ in
            let nothing = #expect(throws: LarderError.self) { try larder.precache(lines: ["ftp://files.example/x"]) }
            #expect(nothing?.description.hasPrefix("nothing to precache: precache:1: ") == true, "\(String(describing: nothing))")
            let unknown = #expect(throws: LarderError.self) { try larder.precacheStatus("no-such-job") }
            #expect(unknown?.description == "no precache job no-such-job")
        }
        let stopped = Larder(configuration: .init(cacheDirectory: temporaryDirectory()))
        let error = #expect(throws: LarderError.self) { try stopped.precache(lines: ["http://127.0.0.1:1/"]) }
        #expect(error?.description == "Larder is not running; start it first")
        try await stopped.stop()  // nothing to stop: no error
    }

    @Test("any Upstream plugs in: the answers come from the client the configuration makes")
    func customUpstream() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Larder.Configuration(cacheDirectory: directory)
        configuration.upstream = { _ in
            UpstreamClient(upstream: CannedUpstream(), connector: try UpstreamConnector(trust: UpstreamTrust()), service: nil)
        }
        let larder = Larder(configuration: configuration)
        let port = try await larder.start()
        let answer = try await ProxiedGet.fetch("http://nowhere.example/anything", proxyPort: port)
        try await larder.stop()
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "canned http://nowhere.example/anything")
    }
}

/// Runs `body` with a started Larder over a temporary cache and a test origin; both are stopped
/// and the cache removed afterwards.
private func withLarder(_ body: (Larder, Int, TestOrigin) async throws -> Void) async throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let origin = try await TestOrigin.start()
    let larder = Larder(configuration: .init(cacheDirectory: directory))
    let port = try await larder.start()
    do {
        try await body(larder, port, origin)
    } catch {
        try? await larder.stop()
        try? await origin.stop()
        throw error
    }
    try await larder.stop()
    try await origin.stop()
}

/// Polls the status until the index holds `count` entries (up to 10 s): Larder commits what it
/// stores just after the client has its answer.
private func entriesStored(_ larder: Larder, count: Int) async throws -> LarderStatus {
    var status = try await larder.status()
    for _ in 0..<200 where status.store.entries < count {
        try await Task.sleep(for: .milliseconds(50))
        status = try await larder.status()
    }
    return status
}

private func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("larder-embedded-\(UUID().uuidString)").path
}
