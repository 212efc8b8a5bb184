import Foundation
import LarderTestSupport
import Testing

/// `larder pack export` and `larder pack import` with the real binary: one download, many devices.
@Suite("End to end: packs")
struct PackTests {
    /// The games `larder status --json` reports for `cache`, by slug: their readiness.
    private func readiness(_ cache: String) async throws -> [String: String] {
        let status = try await LarderCLI.run(["status", "--json", "--proxy", "none", "--cache-dir", cache])
        let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let games = report?["games"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: games.map { ($0["slug"] as? String ?? "", $0["readiness"] as? String ?? "") })
    }

    /// The demo site's origin, a temporary folder (the caller removes it) and the demo games list
    /// written in it.
    private func demoOrigin() async throws -> (origin: TestOrigin, directory: String, list: String) {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        return (origin, directory, try DemoSite.gamesList(for: origin.baseURL, in: directory))
    }

    @Test("a pack from one cache makes the games ready offline in a fresh one; again is a no-op; an older pack keeps newer copies")
    func exportAndImportOffline() async throws {
        let (origin, directory, list) = try await self.demoOrigin()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cacheA = directory + "/a"
        let cacheB = directory + "/b"
        let precache = try await LarderCLI.run(["precache", list, "--cache-dir", cacheA])
        #expect(precache.exitCode == 0, "\(precache.stdout)\n\(precache.stderr)")

        let export = try await LarderCLI.run(["pack", "export", list, "--output", directory + "/games.pack", "--cache-dir", cacheA])
        #expect(export.exitCode == 0, "\(export.stdout)\n\(export.stderr)")
        #expect(export.stdout.contains("4 games (3 ready), 3 pages"), "\(export.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/games.pack.partial"))
        // Any tar reads it: the manifest first, then bodies named by hash.
        let listing = try await LarderCLI.run(["pack", "import", "--dry-run", directory + "/games.pack", "--cache-dir", directory + "/dry"])
        #expect(listing.exitCode == 0, "\(listing.stdout)\n\(listing.stderr)")
        #expect(listing.stdout.contains("would be installed"))
        try await origin.stop()

        let imported = try await LarderCLI.run(["pack", "import", directory + "/games.pack", "--cache-dir", cacheB])
        #expect(imported.exitCode == 0, "\(imported.stdout)\n\(imported.stderr)")
        #expect(imported.stdout.contains("Flip Art (flipart): installed, ready offline"), "\(imported.stdout)")
        #expect(try await self.readiness(cacheB) == ["shell": "ready", "flipart": "ready", "wordbox": "ready", "retired": "skipped"])

        let larder = try await LarderProcess(cacheDirectory: cacheB)
        try await DemoSite.expectServedFromCache(origin: origin, proxy: larder.proxyURL)
        await larder.stop()

        let again = try await LarderCLI.run(["pack", "import", directory + "/games.pack", "--cache-dir", cacheB])
        #expect(again.exitCode == 0)
        #expect(again.stdout.contains("Flip Art (flipart): already up to date"), "\(again.stdout)")
        #expect(again.stdout.contains("Entries: 0 installed"), "\(again.stdout)")
    }

    @Test("an older pack imported over a newer version keeps the newer one")
    func olderPackKeepsNewer() async throws {
        let (origin, directory, list) = try await self.demoOrigin()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cacheA = directory + "/a"
        let cacheB = directory + "/b"
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cacheA]).exitCode == 0)
        #expect(try await LarderCLI.run(["pack", "export", list, "-o", directory + "/old.pack", "--cache-dir", cacheA]).exitCode == 0)
        // A new deploy of the game's page: fetched again by the next run.
        let newPage = "<!doctype html><title>Flip Art v2</title>\n"
        origin.setRoute("/games/flipart/index.html", .text(newPage, contentType: "text/html"))
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cacheA]).exitCode == 0)
        #expect(try await LarderCLI.run(["pack", "export", list, "-o", directory + "/new.pack", "--cache-dir", cacheA]).exitCode == 0)
        try await origin.stop()

        #expect(try await LarderCLI.run(["pack", "import", directory + "/new.pack", "--cache-dir", cacheB]).exitCode == 0)
        let old = try await LarderCLI.run(["pack", "import", directory + "/old.pack", "--cache-dir", cacheB])
        #expect(old.exitCode == 0, "\(old.stdout)\n\(old.stderr)")
        #expect(old.stdout.contains("Flip Art (flipart): this cache's version is newer; kept"), "\(old.stdout)")

        let larder = try await LarderProcess(cacheDirectory: cacheB)
        let page = try await Curl.run(origin.url("/games/flipart/index.html"), proxy: larder.proxyURL)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self) == newPage)
        await larder.stop()
    }

    @Test("bad packs are refused with a message naming the file, and the cache keeps what it had")
    func badPacks() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let notAPack = directory + "/notes.txt"
        try "just some text\n".write(toFile: notAPack, atomically: true, encoding: .utf8)
        let refused = try await LarderCLI.run(["pack", "import", notAPack, "--cache-dir", cache])
        #expect(refused.exitCode == 1)
        #expect(refused.stderr.contains("\(notAPack) is not a Larder pack"), "\(refused.stderr)")

        let missing = try await LarderCLI.run(["pack", "import", directory + "/absent.pack", "--cache-dir", cache])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.contains("cannot open \(directory)/absent.pack"), "\(missing.stderr)")

        let usage = try await LarderCLI.run(["pack", "export", directory + "/absent.txt", "-o", directory + "/x.pack"])
        #expect(usage.exitCode == 2)
    }
}

/// A pack import killed part way.
@Suite("End to end: packs, killed")
struct PackKillTests {
    @Test("SIGKILL mid-import loses nothing cached and leaves no half game; importing again completes it")
    func killedImport() async throws {
        let origin = try await TestOrigin.start()
        let count = 24
        let files = (0..<count).map { "big/f\($0).bin" }
        let listing = try JSONSerialization.data(withJSONObject: ["files": files])
        origin.setRoute("/g/big/offline.meta.json", .text(String(decoding: listing, as: UTF8.self), contentType: "application/json"))
        for (index, file) in files.enumerated() {
            origin.setRoute(
                "/g/" + file,
                TestResponse(
                    headers: [(name: "Content-Type", value: "application/octet-stream")], body: .generated(length: 1_000_000 + Int64(index))
                ))
        }
        origin.setRoute("/kept.html", .text("<p>kept</p>", contentType: "text/html"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cacheA = directory + "/a"
        let cacheB = directory + "/b"
        try "\(origin.url("/g/big"))\n".write(toFile: directory + "/games.txt", atomically: true, encoding: .utf8)
        try "page \(origin.url("/kept.html"))\n".write(toFile: directory + "/kept.txt", atomically: true, encoding: .utf8)
        #expect(try await LarderCLI.run(["precache", directory + "/games.txt", "--cache-dir", cacheA]).exitCode == 0)
        #expect(try await LarderCLI.run(["precache", directory + "/kept.txt", "--cache-dir", cacheB]).exitCode == 0)
        let export = try await LarderCLI.run([
            "pack", "export", directory + "/games.txt", "-o", directory + "/big.pack", "--cache-dir", cacheA,
        ])
        #expect(export.exitCode == 0, "\(export.stderr)")
        try await origin.stop()

        // Killed as soon as it is writing bodies: whatever moment that is, the checks below hold.
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: LarderProcess.binary)
        process.arguments = ["pack", "import", directory + "/big.pack", "--cache-dir", cacheB]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            let writing =
                (try? FileManager.default.contentsOfDirectory(atPath: cacheB + "/tmp"))?.contains { $0.hasSuffix(".partial") } ?? false
            if writing { break }
            usleep(1_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        let verify = try await LarderCLI.run(["verify", "--cache-dir", cacheB])
        #expect(verify.exitCode == 0, "no damaged entry: \(verify.stdout)")
        let status = try await LarderCLI.run(["status", "--json", "--proxy", "none", "--cache-dir", cacheB])
        let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let games = report?["games"] as? [[String: Any]] ?? []
        #expect(games.allSatisfy { $0["readiness"] as? String == "ready" }, "the game is absent or whole: \(games)")
        let pages = report?["pages"] as? [[String: Any]] ?? []
        #expect(pages.count == 1, "the page cached before is still there")

        let again = try await LarderCLI.run(["pack", "import", directory + "/big.pack", "--cache-dir", cacheB])
        #expect(again.exitCode == 0, "\(again.stdout)\n\(again.stderr)")
        let larder = try await LarderProcess(cacheDirectory: cacheB)
        for (index, file) in files.enumerated() {
            let response = try await Curl.run(origin.url("/g/" + file), proxy: larder.proxyURL)
            #expect(response.status == 200, "\(file)")
            #expect(Bytes(response.body) == Bytes(GeneratedBody.bytes(0..<Int64(1_000_000 + index))), "\(file)")
        }
        let kept = try await Curl.run(origin.url("/kept.html"), proxy: larder.proxyURL)
        #expect(String(decoding: kept.body, as: UTF8.self) == "<p>kept</p>")
        await larder.stop()
    }
}
