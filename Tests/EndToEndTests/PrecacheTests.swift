import Foundation
import LarderHTTP
import LarderStore
import LarderTestSupport
import Testing

/// `larder precache` with the real binary against a local origin serving the demo games.
@Suite("End to end: precache")
struct PrecacheTests {
    @Test("larder precache --help names the page keyword, the GAME page form and --upstream-ca")
    func help() async throws {
        let help = try await LarderCLI.run(["precache", "--help"])
        #expect(help.exitCode == 0)
        // The help is wrapped to the terminal's width.
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["page URL", "GAME page URL", "--upstream-ca", "redirects"] {
            #expect(words.contains(text), "\(text) missing from:\n\(help.stdout)")
        }
    }

    @Test("the demo precaches; with the origin stopped every listed file is served with identical bytes")
    func demoOffline() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(run.exitCode == 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        #expect(run.stdout.contains("ready"))
        #expect(run.stdout.contains("Flip Art"))
        #expect(run.stdout.contains("skipped"))
        #expect(
            origin.requests().filter { $0.path.hasPrefix("/games/retired/") && !$0.path.hasSuffix(".json") }.isEmpty,
            "a skip:true game is not fetched")
        try await origin.stop()

        let larder = try await LarderProcess(cacheDirectory: cache)
        try await DemoSite.expectServedFromCache(origin: origin, proxy: larder.proxyURL)
        await larder.stop()
    }

    @Test("precached assets are served cache-first, without contacting the origin; pages stay network-first")
    func cacheFirst() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 0)

        let larder = try await LarderProcess(cacheDirectory: cache)
        origin.resetRecords()
        let asset = try await Curl.run(origin.url("/games/flipart/assets/index-s5wVp7Ny.js"), proxy: larder.proxyURL)
        #expect(asset.header("cache-status")?.hasPrefix("larder; hit") == true)
        #expect(asset.header("cache-status")?.hasSuffix("detail=precached") == true)
        #expect(origin.requestCount("/games/flipart/assets/index-s5wVp7Ny.js") == 0)
        let page = try await Curl.run(origin.url("/games/flipart/index.html"), proxy: larder.proxyURL)
        #expect(page.status == 200)
        #expect(origin.requestCount("/games/flipart/index.html") == 1, "pages are network-first")
        await larder.stop()
        try await origin.stop()
    }

    @Test("a 404 file makes its game partial (exit 1); a text/plain manifest fails only its game")
    func partialAndFailed() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/g/good/offline.meta.json", .text(#"{"files": ["good/a.js"]}"#, contentType: "application/json"))
        origin.setRoute("/g/good/a.js", .text("a", contentType: "text/javascript"))
        origin.setRoute(
            "/g/holey/offline.meta.json", .text(#"{"files": ["holey/a.js", "holey/missing.js"]}"#, contentType: "application/json"))
        origin.setRoute("/g/holey/a.js", .text("a2", contentType: "text/javascript"))
        origin.setRoute("/g/plain/offline.meta.json", .text(#"{"files": ["plain/a.js"]}"#, contentType: "text/plain"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = directory + "/games.txt"
        try "\(origin.url("/g/good"))\n\(origin.url("/g/holey"))\n\(origin.url("/g/plain"))\nnot a url\n".write(
            toFile: list, atomically: true, encoding: .utf8)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache", "--json"])
        #expect(run.exitCode == 1)
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let games = report?["games"] as? [[String: Any]] ?? []
        let states = Dictionary(uniqueKeysWithValues: games.map { ($0["slug"] as? String ?? "", $0["state"] as? String ?? "") })
        #expect(states == ["good": "ready", "holey": "partial", "plain": "failed"])
        let holey = games.first { $0["slug"] as? String == "holey" }
        let failures = holey?["failures"] as? [[String: String]] ?? []
        #expect(failures.count == 1)
        #expect(failures.first?["url"]?.hasSuffix("/g/holey/missing.js") == true)
        #expect(failures.first?["reason"]?.contains("404") == true)
        let plain = games.first { $0["slug"] as? String == "plain" }
        #expect((plain?["error"] as? String)?.contains("text/plain") == true)
        #expect((report?["listProblems"] as? [String])?.first?.hasPrefix("\(list):4:") == true)
        #expect(origin.requestCount("/g/holey/missing.js") == 1, "a 404 is never retried")

        let text = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache"])
        #expect(text.exitCode == 1)
        #expect(text.stdout.contains("partial 1 of 2"))
        #expect(text.stdout.contains("missing.js: answered HTTP 404"))
        try await origin.stop()
    }

    @Test("a second run downloads nothing but manifests and pages")
    func secondRun() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache"]).exitCode == 0)
        origin.resetRecords()
        let second = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache", "--json"])
        #expect(second.exitCode == 0)
        let requested = Set(origin.requests().map(\.path))
        let allowed: (String) -> Bool = { $0.hasSuffix(".html") || $0.hasSuffix(".json") }
        #expect(requested.allSatisfy(allowed), "second run fetched \(requested.filter { !allowed($0) })")
        let report = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
        let assets = try DemoSite.listedFiles().filter { !$0.hasSuffix(".html") }.count
        #expect(report?["alreadyCached"] as? Int == assets)
        try await origin.stop()
    }

    @Test("killed with SIGKILL half way, a re-run fetches only what is missing and every body is right")
    func resumeAfterKill() async throws {
        let origin = try await TestOrigin.start()
        let count = 40
        var files: [String] = []
        for index in 0..<count {
            let path = "/big/asset-\(index).bin"
            files.append("big" + path.dropFirst(4))
            origin.setRoute(
                path,
                TestResponse(body: .bytes(Array(repeating: UInt8(index), count: 40_000 + index)), faults: [.delayHead(.milliseconds(150))]))
        }
        let manifest = "{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}"
        origin.setRoute("/big/offline.meta.json", .text(manifest, contentType: "application/json"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = directory + "/games.txt"
        try origin.url("/big\n").write(toFile: list, atomically: true, encoding: .utf8)
        let cache = directory + "/cache"

        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: LarderProcess.binary)
        process.arguments = ["precache", list, "--cache-dir", cache, "--concurrency", "2"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once some, not all, files are in.
        for _ in 0..<200 where origin.requests().count < 12 {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        await onThread { process.waitUntilExit() }
        let firstRunAssets = origin.requests().filter { $0.path.hasSuffix(".bin") }.count
        #expect(firstRunAssets < count, "the first run finished before it was killed")
        // What the killed run had committed (staged for the game's new version): bodies received
        // but still waiting for their install batch when it was killed are not among them.
        let keys = try (0..<count).map { try CacheKey(url: origin.url("/big/asset-\($0).bin")) }
        let committed = try await {
            let store = try Store(directory: cache)
            defer { try? store.close() }
            return try await store.stagedStates(for: keys).count
        }()
        #expect(committed <= firstRunAssets)

        origin.resetRecords()
        let rerun = try await LarderCLI.run(["precache", list, "--cache-dir", cache, "--json"])
        #expect(rerun.exitCode == 0, "\(rerun.stdout)\(rerun.stderr)")
        let secondRunAssets = origin.requests().filter { $0.path.hasSuffix(".bin") }.count
        // Files committed before the kill are not fetched again; the others are, once each.
        #expect(secondRunAssets == count - committed)
        try await origin.stop()

        let larder = try await LarderProcess(cacheDirectory: cache)
        for index in 0..<count {
            let response = try await Curl.run(origin.url("/big/asset-\(index).bin"), proxy: larder.proxyURL)
            #expect(Bytes(response.body) == Bytes(Array(repeating: UInt8(index), count: 40_000 + index)), "asset \(index)")
        }
        await larder.stop()
    }

    @Test("POST /dev/offline/precache runs the same job inside the proxy and reports progress")
    func webPrecache() async throws {
        try await withProxy { larder, origin in
            origin.serveDirectory(DemoSite.root)
            let body = #"{"urls": ["\#(origin.url("/games/wordbox"))", "\#(origin.url("/about.html"))"]}"#
            let accepted = try await Curl.run(
                larder.proxyURL + "/dev/offline/precache",
                proxy: nil,
                arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body]
            )
            #expect(accepted.status == 202)
            let answer = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
            let statusPath = try #require(answer?["status"] as? String)
            var finished: [String: Any]?
            for _ in 0..<300 {
                let status = try await Curl.run(larder.proxyURL + statusPath, proxy: nil)
                let object = try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any]
                if object?["state"] as? String == "finished" {
                    finished = object
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let report = try #require(finished?["report"] as? [String: Any])
            let games = report["games"] as? [[String: Any]] ?? []
            #expect(games.first?["state"] as? String == "ready")

            // A page on another origin may not make Larder fetch a third party's URLs.
            let foreign = try await Curl.run(
                larder.proxyURL + "/dev/offline/precache",
                proxy: nil,
                arguments: [
                    "-X", "POST", "-H", "Origin: https://evil.example", "-H", "Content-Type: application/json", "--data-binary", body,
                ]
            )
            #expect(foreign.status == 403)
            // Nor through a game's page.
            let withForeignPage = #"{"urls": ["\#(origin.url("/games/wordbox")) page https://evil.example/play"]}"#
            let foreignPage = try await Curl.run(
                larder.proxyURL + "/dev/offline/precache",
                proxy: nil,
                arguments: [
                    "-X", "POST", "-H", "Origin: \(origin.baseURL)", "-H", "Content-Type: application/json", "--data-binary",
                    withForeignPage,
                ]
            )
            #expect(foreignPage.status == 403)
            #expect(foreignPage.text.contains("evil.example"))

            try await origin.stop()
            let asset = try await Curl.run(origin.url("/games/wordbox/assets/index-d48Bb7Ox.js"), proxy: larder.proxyURL)
            #expect(asset.status == 200)
            #expect(asset.header("cache-status")?.contains("detail=precached") == true)
        }
    }

    @Test("usage errors exit 2 with a message naming the problem")
    func usageErrors() async throws {
        let missing = try await LarderCLI.run(["precache", "/nonexistent/games.txt"])
        #expect(missing.exitCode == 2)
        #expect(missing.stderr.contains("/nonexistent/games.txt"))
        let badFlag = try await LarderCLI.run(["precache", "--concurrency", "0", "/dev/null"])
        #expect(badFlag.exitCode == 2)
        #expect(badFlag.stderr.contains("--concurrency"))
    }
}

/// `larder serve` and `larder precache` share one cache directory.
@Suite("End to end: precache beside a running proxy")
struct PrecacheBesideServeTests {
    @Test("while larder precache writes, the running proxy keeps answering, then serves what it stored")
    func concurrentProcesses() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let count = 60
        var files: [String] = []
        for index in 0..<count {
            files.append("bulk/f\(index).bin")
            origin.setRoute("/bulk/f\(index).bin", TestResponse(body: .generated(length: 200_000), faults: [.delayHead(.milliseconds(30))]))
        }
        origin.setRoute(
            "/bulk/offline.meta.json",
            .text("{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}", contentType: "application/json"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = directory + "/games.txt"
        try origin.url("/bulk\n").write(toFile: list, atomically: true, encoding: .utf8)

        let larder = try await LarderProcess(cacheDirectory: cache)
        _ = try await Curl.run(origin.url("/style.css"), proxy: larder.proxyURL)
        async let precache = LarderCLI.run(["precache", list, "--cache-dir", cache])
        var answered = 0
        for _ in 0..<20 {
            let hit = try await Curl.run(origin.url("/style.css"), proxy: larder.proxyURL)
            if hit.status == 200 { answered += 1 }
            try await Task.sleep(for: .milliseconds(50))
        }
        let result = try await precache
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(answered == 20)
        try await origin.stop()
        let stored = try await Curl.run(origin.url("/bulk/f7.bin"), proxy: larder.proxyURL)
        #expect(Bytes(stored.body) == Bytes(GeneratedBody.bytes(0..<200_000)))
        #expect(stored.header("cache-status")?.contains("detail=precached") == true)
        await larder.stop()
    }
}

@Suite("End to end: precache yields to the proxy")
struct PrecachePriorityTests {
    @Test("larder precache runs at nice 10, so a proxy beside it answers first")
    func runsAtLowerPriority() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/slow.html", .text("<p>slow", contentType: "text/html", faults: [.delayHead(.seconds(2))]))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let list = directory + "/games.txt"
        try "\(origin.url("/slow.html"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: LarderProcess.binary)
        process.arguments = ["precache", list, "--cache-dir", directory + "/cache"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Fields 3 and 19 of /proc/PID/stat are the state and the nice value. The child is not
        // reaped while this looks, so even a test starved until after it exited still reads its
        // nice value (a zombie keeps it).
        var niceness: Int?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ")
            {
                let fields = stat[afterName.upperBound...].split(separator: " ")
                niceness = fields.count > 16 ? Int(fields[16]) : nil
                if niceness == 10 || fields.first == "Z" { break }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await onThread { process.waitUntilExit() }
        try await origin.stop()
        #expect(niceness == 10)
        #expect(process.terminationStatus == 0)
    }
}

/// Pages in games.txt and atomic game updates, with the real binary: an update cut short (the
/// origin stops answering a new file, or `larder precache` is killed) leaves the previous version
/// ready and served; a complete one switches, and the files the new manifest dropped are gone.
@Suite("End to end: precache pages and atomic updates")
struct PrecacheUpdateEndToEndTests {
    /// Game `g` on `origin`, in deploy `version`: v1 lists `old.js`, v2 lists `new.js` and `more.js`
    /// instead; its `index.html` and its page `/play/g` (no extension) say which deploy they are.
    private static func deploy(_ version: Int, on origin: TestOrigin, more: TestResponse? = nil) {
        let files = version == 1 ? ["g/index.html", "g/keep.js", "g/old.js"] : ["g/index.html", "g/keep.js", "g/new.js", "g/more.js"]
        origin.setRoute(
            "/g/offline.meta.json",
            .text("{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}", contentType: "application/json"))
        origin.setRoute("/g/index.html", .text("index v\(version)", contentType: "text/html"))
        origin.setRoute("/play/g", .text("play v\(version)", contentType: "text/html"))
        origin.setRoute("/lab", .text("lab v\(version)", contentType: "text/html"))
        origin.setRoute("/g/keep.js", .text("keep", contentType: "text/javascript"))
        origin.setRoute("/g/old.js", .text("old", contentType: "text/javascript"))
        origin.setRoute("/g/new.js", .text("new", contentType: "text/javascript"))
        origin.setRoute("/g/more.js", more ?? .text("more", contentType: "text/javascript"))
    }

    /// What `larder serve --offline` on `cache` answers for each path, and what /dev/offline.json says
    /// of game `g`.
    private static func offlineView(cache: String, origin: TestOrigin, paths: [String]) async throws -> (
        bodies: [String: String], game: [String: Any]
    ) {
        let larder = try await LarderProcess(serve: ["--offline"], cacheDirectory: cache)
        // The report first: requests for files a version does not have are offline misses, which
        // (rightly) make /dev/offline call the game not ready.
        let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        var bodies: [String: String] = [:]
        for path in paths {
            let response = try await Curl.run(origin.url(path), proxy: larder.proxyURL)
            bodies[path] = response.status == 200 ? response.text : "HTTP \(response.status)"
        }
        await larder.stop()
        let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
        let games = json?["games"] as? [[String: Any]] ?? []
        return (bodies, try #require(games.first { $0["slug"] as? String == "g" }))
    }

    static let paths = ["/g/index.html", "/play/g", "/g/keep.js", "/g/old.js", "/g/new.js", "/g/more.js"]
    static let version1 = [
        "/g/index.html": "index v1", "/play/g": "play v1", "/g/keep.js": "keep", "/g/old.js": "old", "/g/new.js": "HTTP 504",
        "/g/more.js": "HTTP 504",
    ]

    @Test("precaching a game again from /dev/offline keeps its page")
    func precacheGameAgainKeepsItsPage() async throws {
        try await withProxy { larder, origin in
            Self.deploy(1, on: origin)
            let body = #"{"urls": ["\#(origin.url("/g")) page \#(origin.url("/play/g"))"]}"#
            let accepted = try await Curl.run(
                larder.proxyURL + "/dev/offline/precache", proxy: nil,
                arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body])
            let first = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
            try await Self.waitForJob(larder, statusPath: try #require(first?["status"] as? String))
            origin.resetRecords()

            let again = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/precache-game", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-binary", "game=g"])
            #expect(again.status == 303)
            let location = try #require(again.header("location"))
            let job = try #require(location.split(separator: "job=").last?.split(separator: "&").first)
            try await Self.waitForJob(larder, statusPath: "/dev/offline/precache/\(job)")
            #expect(origin.requestCount("/play/g") == 1, "the page is fetched with its game")
            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
            let game = (json?["games"] as? [[String: Any]] ?? []).first { $0["slug"] as? String == "g" }
            #expect(game?["ready"] as? Bool == true)
            #expect(game?["filesListed"] as? Int == 4)
        }
    }

    /// Waits (up to 30 s) until the precache job at `statusPath` has finished.
    private static func waitForJob(_ larder: LarderProcess, statusPath: String) async throws {
        for _ in 0..<300 {
            let status = try await Curl.run(larder.proxyURL + statusPath, proxy: nil)
            let json = try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any]
            if json?["state"] as? String == "finished" { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the precache job \(statusPath) did not finish")
    }

    @Test("an update cut short by the origin or by SIGKILL leaves the previous version ready and served; a complete one switches")
    func interruptedUpdates() async throws {
        let origin = try await TestOrigin.start()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = directory + "/games.txt"
        try "page \(origin.url("/lab"))\n\(origin.url("/g")) page \(origin.url("/play/g"))\n".write(
            toFile: list, atomically: true, encoding: .utf8)

        Self.deploy(1, on: origin)
        let first = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(first.exitCode == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("Pages: 1 of 1 cached"))
        #expect(origin.requestCount("/lab/offline.meta.json") == 0, "a page line is not a game root")
        var view = try await Self.offlineView(cache: cache, origin: origin, paths: Self.paths + ["/lab"])
        #expect(view.game["ready"] as? Bool == true)
        #expect(view.game["filesListed"] as? Int == 4, "the page counts with the game's files")
        #expect(view.bodies["/lab"] == "lab v1")

        // The origin stops answering one file of the new deploy.
        Self.deploy(2, on: origin, more: TestResponse(faults: [.closeWithoutResponse]))
        let cutShort = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(cutShort.exitCode == 1)
        #expect(cutShort.stdout.contains("not updated"), "\(cutShort.stdout)")
        #expect(cutShort.stdout.contains("more.js"))
        view = try await Self.offlineView(cache: cache, origin: origin, paths: Self.paths)
        #expect(view.bodies == Self.version1)
        #expect(view.game["ready"] as? Bool == true)
        #expect((view.game["lastError"] as? String)?.hasPrefix("not updated") == true)

        // `larder precache` is killed while the new deploy's last file hangs.
        Self.deploy(2, on: origin, more: .text("more", contentType: "text/javascript", faults: [.delayHead(.seconds(60))]))
        origin.resetRecords()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: LarderProcess.binary)
        process.arguments = ["precache", list, "--cache-dir", cache]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<500 where origin.requestCount("/g/more.js") == 0 || origin.requestCount("/g/index.html") == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        // The other downloads of the deploy finish meanwhile; their bodies wait, staged.
        try await Task.sleep(for: .milliseconds(500))
        kill(process.processIdentifier, SIGKILL)
        await onThread { process.waitUntilExit() }
        #expect(origin.requestCount("/g/more.js") >= 1, "killed mid-run")
        view = try await Self.offlineView(cache: cache, origin: origin, paths: Self.paths)
        #expect(view.bodies == Self.version1)
        #expect(view.game["ready"] as? Bool == true)

        // A complete update switches: the new deploy is served, the dropped file is gone.
        Self.deploy(2, on: origin)
        let complete = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(complete.exitCode == 0, "\(complete.stdout)\(complete.stderr)")
        #expect(complete.stdout.contains("1 no longer listed and removed"), "\(complete.stdout)")
        view = try await Self.offlineView(cache: cache, origin: origin, paths: Self.paths + ["/lab"])
        #expect(
            view.bodies == [
                "/g/index.html": "index v2", "/play/g": "play v2", "/g/keep.js": "keep", "/g/old.js": "HTTP 504", "/g/new.js": "new",
                "/g/more.js": "more", "/lab": "lab v2",
            ])
        #expect(view.game["ready"] as? Bool == true)
        #expect(view.game["lastError"] == nil || view.game["lastError"] is NSNull)
        try await origin.stop()
    }
}
