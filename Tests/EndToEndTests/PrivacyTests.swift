import Foundation
import LarderTestSupport
import Testing

/// What is private and where it is kept, through the binary (docs/SERVING.md, "What is private and
/// where it is kept"): the cache directory's modes, queued credentials, tokens on the status pages,
/// and what a web page's precache job may fetch.
@Suite("End to end: what is private")
struct PrivacyTests {
    /// Every folder under `directory` (itself included) and every file, with its permission bits.
    static func modes(under directory: String) throws -> [(path: String, isFolder: Bool, mode: Int)] {
        var found: [(path: String, isFolder: Bool, mode: Int)] = []
        let manager = FileManager.default
        func mode(_ path: String) throws -> Int {
            try manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
        }
        found.append((directory, true, try mode(directory)))
        for relative in manager.subpaths(atPath: directory) ?? [] {
            let path = directory + "/" + relative
            var isFolder: ObjCBool = false
            // A file SQLite deletes while the walk goes on is skipped.
            guard manager.fileExists(atPath: path, isDirectory: &isFolder), let bits = try? mode(path) else { continue }
            found.append((path, isFolder.boolValue, bits))
        }
        return found
    }

    /// Expects every folder under `directory` to be 0700 and every file 0600, but the CA
    /// certificate: public, 0644, in the 0700 `ca` folder.
    static func expectPrivate(_ directory: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try Self.modes(under: directory)
        #expect(found.contains { $0.path.hasSuffix("/index.sqlite") }, "the walk found the index", sourceLocation: sourceLocation)
        for (path, isFolder, mode) in found {
            let expected = isFolder ? 0o700 : path == directory + "/ca/ca.pem" ? 0o644 : 0o600
            #expect(mode == expected, "\(path) has mode \(String(mode, radix: 8))", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "larder serve and larder precache create the cache directory 0700 with 0600 files; an existing looser one is named in a warning, not changed"
    )
    func cacheDirectoryModes() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        origin.setRoute("/kept", .text("kept", headers: [("Cache-Control", "max-age=600")]))
        let gone = try await TestOrigin.start()
        try await gone.stop()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"queue": {"routes": [{"match": "/api/**"}]}}"#.write(toFile: config, atomically: true, encoding: .utf8)

        // serve: a stored answer and a queued write (the queue folder and a body in it).
        let served = directory + "/served/cache"
        let larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: served)
        do {
            #expect(try await Curl.run(origin.url("/kept"), proxy: larder.proxyURL).status == 200)
            let queued = try await Curl.run(gone.url("/api/save"), proxy: larder.proxyURL, arguments: ["-X", "POST", "--data", "x"])
            #expect(queued.status == 202)
            #expect(
                await eventually {
                    (try? await Curl.run(larder.proxyURL + "/dev/offline/entries.json", proxy: nil))?.text.contains("/kept") == true
                })
            // While it runs (the index's -wal and -shm files exist), and after it stopped.
            try Self.expectPrivate(served)
            #expect(!larder.log.contains("can be read by other users"))
        } catch {
            print("larder log:\n\(larder.log)")
            throw error
        }
        await larder.stop()
        try Self.expectPrivate(served)

        // precache: bodies, staged and installed.
        let precached = directory + "/precached"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        let run = try await LarderCLI.run(["precache", list, "--cache-dir", precached])
        #expect(run.exitCode == 0, "stderr:\n\(run.stderr)")
        try Self.expectPrivate(precached)
        try await Self.expectUnreadableByAnotherUser(precached + "/index.sqlite", control: config)

        // A directory the user made 0755 keeps its mode, and the warning says how to fix it.
        let loose = directory + "/loose"
        try FileManager.default.createDirectory(atPath: loose, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: loose)
        let warned = try await LarderProcess(cacheDirectory: loose)
        #expect(warned.log.contains("The cache directory \(loose) can be read by other users (mode 755)"), "log:\n\(warned.log)")
        #expect(warned.log.contains("chmod 700 \(loose)"))
        await warned.stop()
        #expect(try FileManager.default.attributesOfItem(atPath: loose)[.posixPermissions] as? Int == 0o755)
        let precacheWarned = try await LarderCLI.run(["precache", list, "--cache-dir", loose])
        #expect(precacheWarned.stderr.contains("chmod 700 \(loose)"), "stderr:\n\(precacheWarned.stderr)")
        try? await origin.stop()
    }

    /// As another local user (`nobody`, when the tests run as root, as CI does): `path` cannot be
    /// read, while `control`, a file the test wrote beside it with the usual umask, can (so the
    /// refusal is the cache directory's mode, not the way there).
    static func expectUnreadableByAnotherUser(_ path: String, control: String) async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        // The test's own folders are made readable on the way, so only Larder's modes can refuse.
        var folder = (control as NSString).deletingLastPathComponent
        while folder != "/" && !folder.isEmpty {
            let mode = (try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int) ?? 0
            try FileManager.default.setAttributes([.posixPermissions: mode | 0o005], ofItemAtPath: folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: control)
        func readAsNobody(_ file: String) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/cat", file]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(try readAsNobody(control) == 0, "another user can read the test's own file \(control)")
        #expect(try readAsNobody(path) != 0, "another local user read \(path)")
    }

    @Test(
        "a pending write's credentials are exported as [redacted] (headers and query tokens) unless --include-credentials; a dead letter keeps none"
    )
    func queuedCredentials() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"queue": {"routes": [{"match": "/api/**"}]}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let origin = try await TestOrigin.start()
        origin.setRoute("/api/doc", .text("no such document", status: 400))
        try await origin.stop()
        let credentials = [
            ("Authorization", "Bearer tok-authorization"), ("Cookie", "sid=tok-cookie"), ("Cookie2", "tok-cookie2"),
            ("X-Password", "tok-password"), ("X-Access-Key", "tok-access-key"), ("X-CSRF-Token", "tok-csrf"),
        ]
        let larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: directory + "/cache")
        do {
            let sent = try await Curl.run(
                origin.url("/api/doc?page=2&access_token=tok-query&Signature=tok-signature"), proxy: larder.proxyURL,
                arguments: ["-X", "PUT", "--data", "{}", "-H", "X-App: kept"] + credentials.flatMap { ["-H", "\($0.0): \($0.1)"] })
            #expect(sent.status == 202)
            let cache = ["--cache-dir", larder.cacheDirectory]
            // Its replays fail meanwhile, and their error, which names the URL, is exported too.
            #expect(try await eventually { try await LarderCLI.run(["queue", "list"] + cache).stdout.contains("attempt") })
            func exported(_ arguments: [String]) async throws -> (url: String, headers: [[String]], text: String) {
                let run = try await LarderCLI.run(["queue", "export"] + arguments + cache)
                #expect(run.exitCode == 0, "\(run.stderr)")
                let line = try #require(run.stdout.split(separator: "\n").first)
                let write = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return (write["url"] as? String ?? "", write["headers"] as? [[String]] ?? [], run.stdout)
            }

            let redacted = try await exported([])
            #expect(!redacted.text.contains("tok-"), "\(redacted.text)")
            #expect(redacted.url == origin.url("/api/doc?page=2&access_token=[redacted]&Signature=[redacted]"))
            for (name, _) in credentials {
                #expect(redacted.headers.contains([name, "[redacted]"]), "\(name)")
            }
            #expect(redacted.headers.contains(["X-App", "kept"]))
            let whole = try await exported(["--include-credentials"])
            #expect(whole.url == origin.url("/api/doc?page=2&access_token=tok-query&Signature=tok-signature"))
            for (name, value) in credentials {
                #expect(whole.headers.contains([name, value]), "\(name)")
            }

            // Delivered with its credentials; refused, it is dead-lettered and keeps none of them.
            try await origin.restart()
            #expect(await eventually(within: 60) { origin.requestCount("/api/doc") == 1 })
            #expect(origin.requests("/api/doc").first?.header("authorization") == "Bearer tok-authorization")
            #expect(
                try await eventually {
                    try await LarderCLI.run(["queue", "list"] + cache).stdout.contains("dead-letter PUT")
                })
            let dead = try await exported(["--include-credentials"])
            for (name, _) in credentials {
                #expect(!dead.headers.contains { $0.first == name }, "\(name) kept at rest: \(dead.text)")
            }
            #expect(dead.headers.contains(["X-App", "kept"]))
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
        try? await origin.stop()
    }

    @Test("a declared request's {{env:}} token shows on no page, JSON, search, larder status or log line, online or with its origin down")
    func declaredTokenNeverShown() async throws {
        let secret = "tok" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let origin = try await TestOrigin.start()
        // no-store: the app's own request is not stored over the declared answer.
        origin.setRoute("/feed", .text(#"{"items":[1]}"#, contentType: "application/json", headers: [("Cache-Control", "no-store")]))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"requests": [{"name": "feed", "url": "\#(origin.url("/feed"))?key={{env:LARDER_E2E_SECRET}}&v=1"}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let cache = directory + "/cache"
        let larder = try await LarderProcess(
            serve: ["--config", config, "--log-level", "info"], cacheDirectory: cache, environment: ["LARDER_E2E_SECRET": secret])
        let appURL = origin.url("/feed?key=\(secret)&v=1")

        /// Everything Larder shows: its pages, their JSON, an entry search, `larder status`, its log.
        func shown() async throws -> [(String, String)] {
            var texts: [(String, String)] = []
            for path in [
                "/dev/offline", "/dev/offline.json", "/dev/offline/entries", "/dev/offline/entries.json", "/dev/offline/entries?q=feed",
                "/dev/offline/entries.json?q=feed", "/dev/offline/entries.json?q=key%3D", "/metrics",
            ] {
                texts.append((path, try await Curl.run(larder.proxyURL + path, proxy: nil).text))
            }
            for arguments in [["status"], ["status", "--json"]] {
                let status = try await LarderCLI.run(
                    arguments + ["--cache-dir", cache, "--config", config, "--proxy", larder.proxyURL],
                    environment: ["LARDER_E2E_SECRET": secret])
                texts.append((arguments.joined(separator: " "), status.stdout + status.stderr))
            }
            texts.append(("log", larder.log))
            return texts
        }

        do {
            let report = { try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil).text }
            #expect(try await eventually { try await report().contains(#""state":"fresh""#) })
            #expect(origin.requests("/feed").first?.uri.contains(secret) == true, "the token is sent")
            // The app's own request, which carries the token too.
            #expect(try await Curl.run(appURL, proxy: larder.proxyURL).status == 200)
            var texts = try await shown()

            // The origin is gone: the refresh fails to connect, and the app is answered from the store.
            try await origin.stop()
            let refresh = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/refresh-request", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data", "name=feed"])
            #expect(refresh.status == 303)
            #expect(try await eventually { try await report().contains(#""state":"failing""#) })
            #expect(try await eventually { try await report().contains(#""consecutiveFailures":1"#) }, "the host's last error is kept")
            let offline = try await Curl.run(appURL, proxy: larder.proxyURL)
            #expect(offline.status == 200)
            #expect(offline.header("larder-offline") == "1")
            // Another URL with the token, never stored: an offline miss, and the host's last error.
            #expect(try await Curl.run(origin.url("/feed?key=\(secret)&v=2"), proxy: larder.proxyURL).status >= 500)
            #expect(try await eventually { try await report().contains("v=2") }, "the miss is listed")
            texts += try await shown()

            #expect(texts.contains { $0.1.contains("{{env:LARDER_E2E_SECRET}}") }, "the placeholder is shown")
            for (source, text) in texts {
                #expect(!text.contains(secret), "\(source) shows the token:\n\(text)")
            }
            // The entry search index holds no token either.
            let search = try await Curl.run(larder.proxyURL + "/dev/offline/entries.json?q=\(secret)", proxy: nil)
            let found = try JSONSerialization.jsonObject(with: Data(search.body)) as? [String: Any]
            #expect(found?["total"] as? Int == 0)

            // The entry list shows the key with its placeholder; purging by that key removes the entry.
            let listed = try await Curl.run(larder.proxyURL + "/dev/offline/entries.json", proxy: nil)
            let entries = (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["entries"] as? [[String: Any]]
            let key = try #require(entries?.first?["key"] as? String)
            #expect(key.contains("{{env:LARDER_E2E_SECRET}}"))
            let purged = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/purge-entry", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-urlencode", "key=\(key)"])
            #expect(purged.status == 303)
            #expect(purged.header("location")?.contains("Purged") == true, "\(purged.header("location") ?? "")")
            #expect(purged.header("location")?.contains(secret) == false)
            let after = try await Curl.run(larder.proxyURL + "/dev/offline/entries.json", proxy: nil)
            #expect((try JSONSerialization.jsonObject(with: Data(after.body)) as? [String: Any])?["total"] as? Int == 0)
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    /// POSTs `urls` to the precache API as a page on `origin` (or without `Origin`).
    static func precache(_ urls: [String], origin: String?, larder: LarderProcess) async throws -> CurlResult {
        let body = try JSONSerialization.data(withJSONObject: ["urls": urls])
        var arguments = ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", String(decoding: body, as: UTF8.self)]
        if let origin { arguments += ["-H", "Origin: \(origin)"] }
        return try await Curl.run(larder.proxyURL + "/dev/offline/precache", proxy: nil, arguments: arguments)
    }

    /// The finished status of the job `accepted` queued.
    static func finished(_ accepted: CurlResult, larder: LarderProcess) async throws -> String {
        let answer = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
        let path = try #require(answer?["status"] as? String, "\(accepted.status) \(accepted.text)")
        var text = ""
        _ = try await eventually(within: 60) {
            text = try await Curl.run(larder.proxyURL + path, proxy: nil).text
            return text.contains(#""state":"finished""#)
        }
        #expect(text.contains(#""state":"finished""#), "\(text)")
        return text
    }

    @Test("a page's precache job fetches only its own URLs, and its report names only them; the user's own jobs still take the extra URLs")
    func pageJobOwnURLsOnly() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/app.html", .text("<p>app</p>", contentType: "text/html"))
        origin.setRoute("/private-mail-inbox-SECRET", .text("gone", status: 404))
        origin.setRoute("/private-notes", .text("notes", contentType: "text/html"))
        let larder = try await LarderProcess()
        do {
            // The user's extra URLs, added on /dev/offline (which precaches them at once).
            for path in ["/private-mail-inbox-SECRET", "/private-notes"] {
                let added = try await Curl.run(
                    larder.proxyURL + "/dev/offline/actions/add-to-precache", proxy: nil,
                    arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data-urlencode", "url=\(origin.url(path))"])
                #expect(added.status == 303)
            }
            // A job without Origin (curl, the user's own tools) precaches the extra URLs with its own,
            // as before; it runs after the ones the additions started, so they are done too.
            let own = try await Self.precache([origin.url("/app.html")], origin: nil, larder: larder)
            #expect(own.status == 202)
            let ownStatus = try await Self.finished(own, larder: larder)
            #expect(ownStatus.contains("private-mail-inbox-SECRET"), "the user's report names the failed extra URL: \(ownStatus)")
            #expect(origin.requestCount("/private-notes") >= 1)
            origin.resetRecords()

            let accepted = try await Self.precache([origin.url("/app.html")], origin: origin.baseURL, larder: larder)
            #expect(accepted.status == 202)
            #expect(accepted.header("access-control-allow-origin") == origin.baseURL)
            let status = try await Self.finished(accepted, larder: larder)
            #expect(origin.requestCount("/app.html") == 1)
            #expect(origin.requestCount("/private-mail-inbox-SECRET") == 0)
            #expect(origin.requestCount("/private-notes") == 0)
            #expect(!status.contains("private"), "\(status)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
        try? await origin.stop()
    }

    @Test("a page origin may have five precache jobs queued or running; the sixth gets 429, another origin's does not")
    func pageJobsBounded() async throws {
        let origin = try await TestOrigin.start()
        // The first job reads this page, a byte every half second, until the origin stops: the
        // next ones queue behind it however slowly they are sent.
        origin.setRoute(
            "/slow.html",
            TestResponse(
                headers: [("Content-Type", "text/html")], body: .bytes(Array(repeating: UInt8(ascii: " "), count: 4000)),
                faults: [.chunkSize(1), .delayChunks(.milliseconds(500))]))
        origin.setRoute("/page.html", .text("page", contentType: "text/html"))
        let other = try await TestOrigin.start()
        other.setRoute("/page.html", .text("page", contentType: "text/html"))
        let larder = try await LarderProcess()
        do {
            var statuses: [Int] = []
            for path in ["/slow.html", "/page.html", "/page.html", "/page.html", "/page.html", "/page.html"] {
                statuses.append(try await Self.precache([origin.url(path)], origin: origin.baseURL, larder: larder).status)
            }
            #expect(statuses == [202, 202, 202, 202, 202, 429])
            let refused = try await Self.precache([origin.url("/page.html")], origin: origin.baseURL, larder: larder)
            #expect(refused.status == 429)
            #expect(refused.text.contains("at most 5 precache jobs queued or running"), "\(refused.text)")
            #expect(refused.header("access-control-allow-origin") == origin.baseURL, "the page can read why")
            #expect(try await Self.precache([other.url("/page.html")], origin: other.baseURL, larder: larder).status == 202)
        } catch {
            print("larder log:\n\(larder.log)")
            try? await origin.stop()
            await larder.tearDown()
            throw error
        }
        try? await origin.stop()
        await larder.tearDown()
        try? await other.stop()
    }
}
