import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Synchronization
import Testing

@testable import LarderPrecache

/// The runner against a fake upstream and a real store in a temporary directory.
@Suite("Precache runner")
struct PrecacheRunnerTests {
    private static func withStore<T>(_ body: (Store) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)").path
        let store = try Store(directory: directory)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return try await body(store)
    }

    private static func manifest(_ files: [String]) -> FakeUpstream.Answer {
        .ok("{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}", contentType: "application/json")
    }

    private static func fastOptions() -> PrecacheOptions {
        var options = PrecacheOptions()
        options.retry = RetryPolicy(attempts: 3, baseDelay: .milliseconds(1))
        return options
    }

    @Test("transient failures are retried until they succeed; a 404 is tried once")
    func retries() async throws {
        let upstream = FakeUpstream { url, attempt in
            switch url {
            case "http://h.example/g/offline.meta.json": return Self.manifest(["g/flaky.js", "g/gone.js", "g/reset.js"])
            case "http://h.example/g/flaky.js": return attempt < 3 ? .status(503) : .ok("flaky")
            case "http://h.example/g/reset.js": return attempt < 2 ? .failure(.connectionReset) : .ok("reset")
            case "http://h.example/g/gone.js": return .status(404)
            default: return .status(404)
            }
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            let report = await runner.run(GamesList.parse("http://h.example/g\n", source: "t"))
            #expect(upstream.attempts("http://h.example/g/flaky.js") == 3)
            #expect(upstream.attempts("http://h.example/g/reset.js") == 2)
            #expect(upstream.attempts("http://h.example/g/gone.js") == 1)
            #expect(report.games.first?.state == .partial)
            #expect(report.games.first?.failures == [.init(url: "http://h.example/g/gone.js", reason: "answered HTTP 404")])
            #expect(!report.succeeded)
            let flaky = try await store.entry(for: try CacheKey(url: "http://h.example/g/flaky.js"))
            #expect(flaky?.kind == .precached)
            let body = try flaky.map { try String(contentsOfFile: $0.bodyPath, encoding: .utf8) }
            #expect(body == "flaky")
        }
    }

    @Test("at most 6 requests per host at once; pages first, then games in list order")
    func politenessAndOrder() async throws {
        let files = (0..<30).map { "a/f\($0).js" }
        let upstream = FakeUpstream(latency: .milliseconds(20)) { url, _ in
            if url.hasSuffix("/a/offline.meta.json") { return Self.manifest(files) }
            if url.hasSuffix("/b/offline.meta.json") { return Self.manifest(["b/only.js"]) }
            if url.hasSuffix("metadata.json") { return .status(404) }
            return .ok(url)
        }
        try await Self.withStore { store in
            var options = Self.fastOptions()
            options.concurrency = 16
            let runner = PrecacheRunner(store: store, upstream: upstream, options: options)
            let list = GamesList.parse("http://h.example/a\nhttp://h.example/b\nhttp://h.example/page.html\n", source: "t")
            let report = await runner.run(list)
            #expect(report.succeeded)
            #expect(upstream.peakInFlight(host: "h.example:80") <= 6)
            // Slots are granted in plan order (HostLimiterTests pins that exactly); requests that got
            // theirs at the same moment reach the upstream in whatever order threads run, so the page
            // is among the first six requests and game b's file among the last six.
            let downloads = upstream.requestedURLs.filter { !$0.hasSuffix(".json") }
            #expect(downloads.prefix(6).contains("http://h.example/page.html"), "\(downloads)")
            #expect(downloads.suffix(6).contains("http://h.example/b/only.js"), "\(downloads)")
            #expect(downloads.count == 32)
        }
        let serial = FakeUpstream { url, _ in
            if url.hasSuffix("/a/offline.meta.json") { return Self.manifest(["a/1.js", "a/2.js"]) }
            if url.hasSuffix("/b/offline.meta.json") { return Self.manifest(["b/1.js"]) }
            return url.hasSuffix("metadata.json") ? .status(404) : .ok(url)
        }
        try await Self.withStore { store in
            var options = Self.fastOptions()
            options.concurrency = 1
            _ = await PrecacheRunner(store: store, upstream: serial, options: options)
                .run(GamesList.parse("http://h.example/a\nhttp://h.example/b\n", source: "t"))
            #expect(
                serial.requestedURLs.filter { $0.hasSuffix(".js") } == [
                    "http://h.example/a/1.js", "http://h.example/a/2.js", "http://h.example/b/1.js",
                ])
        }
    }

    @Test("each download first waits what pauseBeforeDownload says (the proxy's clients busy), then starts; zero waits nothing")
    func pauseBeforeDownload() async throws {
        let files = (0..<8).map { "a/f\($0).js" }
        let upstream = FakeUpstream(latency: .zero) { url, _ in
            if url.hasSuffix("/a/offline.meta.json") { return Self.manifest(files) }
            if url.hasSuffix("metadata.json") { return .status(404) }
            return .ok(url)
        }
        for pause in [Duration.milliseconds(40), .zero] {
            try await Self.withStore { store in
                let asked = Atomic<Int>(0)
                var options = Self.fastOptions()
                options.concurrency = 2
                options.pauseBeforeDownload = {
                    asked.add(1, ordering: .relaxed)
                    return pause
                }
                let started = ContinuousClock.now
                let report = await PrecacheRunner(store: store, upstream: upstream, options: options)
                    .run(GamesList.parse("http://h.example/a\n", source: "t"))
                let elapsed = ContinuousClock.now - started
                #expect(report.succeeded)
                #expect(report.downloaded == files.count)
                // Asked once per download, not for the manifest.
                #expect(asked.load(ordering: .relaxed) == files.count)
                // Two at once, each paused before its download: at least four pauses one after
                // another (a lower bound only: a busy machine makes it longer, never shorter).
                #expect(elapsed >= pause * 4)
            }
        }
    }

    @Test("files a new manifest no longer lists are removed; those another game lists stay")
    func cleanupAfterManifestChange() async throws {
        let version = ManifestVersion()
        let upstream = FakeUpstream { url, _ in
            switch url {
            case "http://h.example/a/offline.meta.json":
                return version.isNew ? Self.manifest(["a/keep.js", "a/new.js"]) : Self.manifest(["a/keep.js", "a/old.js", "shared.js"])
            case "http://h.example/b/offline.meta.json":
                return Self.manifest(["shared.js"])
            default:
                return url.hasSuffix("metadata.json") ? .status(404) : .ok(url)
            }
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            let list = GamesList.parse("http://h.example/a\nhttp://h.example/b\n", source: "t")
            #expect(await runner.run(list).succeeded)
            version.isNew = true
            let second = await runner.run(list)
            #expect(second.succeeded)
            #expect(second.removed == 1)
            let old = try await store.entry(for: try CacheKey(url: "http://h.example/a/old.js"))
            let shared = try await store.entry(for: try CacheKey(url: "http://h.example/shared.js"))
            let new = try await store.entry(for: try CacheKey(url: "http://h.example/a/new.js"))
            #expect(old == nil)
            #expect(shared != nil)
            #expect(new?.kind == .precached)
            let files = try await store.gameFiles(slug: "a").map(\.url)
            #expect(files == ["http://h.example/a/keep.js", "http://h.example/a/new.js"])
        }
    }

    @Test("a listed file that browsing already stored is pinned without a download; a re-run leaves it precached")
    func storedRuntimeEntryIsPinned() async throws {
        let upstream = FakeUpstream { url, _ in
            switch url {
            case "http://h.example/g/offline.meta.json": return Self.manifest(["g/seen.js", "g/new.js"])
            default: return url.hasSuffix("metadata.json") ? .status(404) : .ok(url)
            }
        }
        try await Self.withStore { store in
            let seen = try CacheKey(url: "http://h.example/g/seen.js")
            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: Array("seen".utf8))
            let now = Date()
            let head = StoredResponseHead(
                url: seen.rawValue, status: 200, headers: [HeaderField(name: "Content-Length", value: "4")],
                requestTime: now, responseTime: now)
            _ = try await writer.commit(key: seen, head: head, kind: .runtime, expectedLength: 4)

            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            let list = GamesList.parse("http://h.example/g\n", source: "t")
            #expect(await runner.run(list).succeeded)
            #expect(upstream.attempts("http://h.example/g/seen.js") == 0)
            #expect(try await store.entry(for: seen)?.kind == .precached)

            #expect(await runner.run(list).succeeded)
            #expect(upstream.attempts("http://h.example/g/seen.js") == 0)
            #expect(upstream.attempts("http://h.example/g/new.js") == 1)
            #expect(try await store.entry(for: seen)?.kind == .precached)
            #expect(try await store.gameFiles(slug: "g").map(\.state) == [.cached, .cached])
        }
    }

    @Test("a manifest that cannot be fetched forgets nothing cached: a ready game stays ready, others fail")
    func failedManifestKeepsFiles() async throws {
        let down = ManifestVersion()
        let upstream = FakeUpstream { url, _ in
            if url == "http://h.example/a/offline.meta.json" {
                return down.isNew ? .failure(.connectionRefused) : Self.manifest(["a/x.js"])
            }
            if url == "http://h.example/b/offline.meta.json" {
                return down.isNew ? .failure(.connectionRefused) : Self.manifest(["b/x.js", "b/gone.js"])
            }
            return url.hasSuffix("metadata.json") || url.hasSuffix("gone.js") ? .status(404) : .ok(url)
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            let list = GamesList.parse("http://h.example/a\nhttp://h.example/b\n", source: "t")
            #expect(await runner.run(list).games.map(\.state) == [.ready, .partial])
            down.isNew = true
            let report = await runner.run(list)
            #expect(!report.succeeded)
            let a = try #require(report.games.first)
            #expect(a.state == .ready && a.previousVersionKept)
            #expect(a.filesCached == 1 && a.filesListed == 1)
            #expect(a.error?.hasPrefix("not updated, the previous version stays ready: ") == true)
            #expect(a.error?.contains("offline.meta.json") == true)
            #expect(try await store.game(slug: "a")?.state == .ready)
            #expect(report.games.last?.state == .failed)
            #expect(report.games.last?.previousVersionKept == false)
            #expect(try await store.game(slug: "b")?.state == .failed)
            let kept = try await store.entry(for: try CacheKey(url: "http://h.example/a/x.js"))
            let files = try await store.gameFiles(slug: "a")
            #expect(kept?.kind == .precached)
            #expect(files.count == 1)
        }
    }

    @Test("a metadata.json past the read limit gives no name and is never stored as a prefix")
    func oversizedMetadataIsNotStored() async throws {
        let name = String(repeating: "n", count: GameMetadata.maximumBodySize + 100_000)
        let upstream = FakeUpstream { url, _ in
            switch url {
            case "http://h.example/a/offline.meta.json": return Self.manifest(["a/x.js"])
            case "http://h.example/a/metadata.json": return .ok("{\"name\": \"\(name)\"}", contentType: "application/json")
            default: return .ok(url)
            }
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            #expect(await runner.run(GamesList.parse("http://h.example/a\n", source: "t")).succeeded)
            let metadata = try CacheKey(url: "http://h.example/a/metadata.json")
            let file = try CacheKey(url: "http://h.example/a/x.js")
            let manifest = try CacheKey(url: "http://h.example/a/offline.meta.json")
            #expect(try await store.entry(for: metadata) == nil)
            #expect(try await store.entry(for: file) != nil)
            #expect(try await store.entry(for: manifest) != nil)
        }
    }
}

/// Games with pages, and updates that switch only when complete, against a fake upstream and a real store.
@Suite("Precache runner: pages and atomic updates")
struct PrecacheUpdateTests {
    private static func withStore<T>(_ body: (Store) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("updates-\(UUID().uuidString)").path
        let store = try Store(directory: directory)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return try await body(store)
    }

    private static func manifest(_ files: [String]) -> FakeUpstream.Answer {
        .ok("{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}", contentType: "application/json")
    }

    private static func runner(_ store: Store, _ upstream: FakeUpstream) -> PrecacheRunner {
        var options = PrecacheOptions()
        options.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(1))
        return PrecacheRunner(store: store, upstream: upstream, options: options)
    }

    private static func body(_ store: Store, _ url: String) async throws -> String? {
        try await store.entry(for: try CacheKey(url: url)).map { try String(contentsOfFile: $0.bodyPath, encoding: .utf8) }
    }

    /// An origin whose game `a` has two deploys: v1 lists `old.js`, v2 lists `new.js` instead, and
    /// `index.html` says which deploy it is. `failing` URLs are refused.
    final class Deploys: Sendable {
        private let state = Mutex((version: 1, failing: Set<String>()))
        var version: Int {
            get { self.state.withLock { $0.version } }
            set { self.state.withLock { $0.version = newValue } }
        }
        var failing: Set<String> {
            get { self.state.withLock { $0.failing } }
            set { self.state.withLock { $0.failing = newValue } }
        }

        func answer(_ url: String) -> FakeUpstream.Answer {
            let (version, failing) = self.state.withLock { ($0.version, $0.failing) }
            if failing.contains(url) { return .failure(.connectionRefused) }
            switch url {
            case "http://h.example/a/offline.meta.json":
                return PrecacheUpdateTests.manifest(
                    version == 1 ? ["a/index.html", "a/keep.js", "a/old.js"] : ["a/index.html", "a/keep.js", "a/new.js", "a/more.js"])
            case "http://h.example/a/index.html": return .ok("v\(version)", contentType: "text/html")
            case "http://www.example/play/a": return .ok("play v\(version)", contentType: "text/html")
            case "http://h.example/a/old.js" where version == 1, "http://h.example/a/keep.js": return .ok(url)
            case "http://h.example/a/new.js" where version > 1, "http://h.example/a/more.js" where version > 1: return .ok(url)
            default: return .status(404)
            }
        }
    }

    @Test("an update that cannot complete keeps the previous version whole and ready; the complete one switches at once")
    func incompleteUpdateKeepsThePreviousVersion() async throws {
        let deploys = Deploys()
        let upstream = FakeUpstream { url, _ in deploys.answer(url) }
        try await Self.withStore { store throws in
            let runner = Self.runner(store, upstream)
            let list = GamesList.parse("http://h.example/a\n", source: "t")
            #expect(await runner.run(list).succeeded)

            deploys.version = 2
            deploys.failing = ["http://h.example/a/more.js"]
            let interrupted = await runner.run(list)
            #expect(!interrupted.succeeded)
            let kept = try #require(interrupted.games.first)
            #expect(kept.state == .ready && kept.previousVersionKept)
            #expect(kept.filesListed == 3 && kept.filesCached == 3)
            #expect(kept.failures.map(\.url) == ["http://h.example/a/more.js"])
            #expect(kept.error?.contains("its new version has 3 of 4 files cached") == true)
            #expect(interrupted.removed == 0)
            // The store still holds and describes version 1, whole: not the new index.html, not old.js gone.
            #expect(try await Self.body(store, "http://h.example/a/index.html") == "v1")
            #expect(try await Self.body(store, "http://h.example/a/old.js") == "http://h.example/a/old.js")
            #expect(try await store.entry(for: try CacheKey(url: "http://h.example/a/new.js")) == nil)
            let record = try #require(try await store.game(slug: "a"))
            #expect(record.state == .ready && record.isComplete)
            #expect(record.lastError?.hasPrefix("not updated, the previous version stays ready: ") == true)
            #expect(try await store.gameFiles(slug: "a").map(\.url).last == "http://h.example/a/old.js")

            deploys.failing = []
            let complete = await runner.run(list)
            #expect(complete.succeeded, "\(complete)")
            #expect(complete.games.first?.previousVersionKept == false)
            #expect(complete.removed == 1)
            #expect(upstream.attempts("http://h.example/a/new.js") == 1, "a body staged by the interrupted run is not fetched again")
            #expect(upstream.attempts("http://h.example/a/keep.js") == 1)
            #expect(try await Self.body(store, "http://h.example/a/index.html") == "v2")
            #expect(try await Self.body(store, "http://h.example/a/new.js") == "http://h.example/a/new.js")
            #expect(try await store.entry(for: try CacheKey(url: "http://h.example/a/new.js"))?.kind == .precached)
            #expect(try await store.entry(for: try CacheKey(url: "http://h.example/a/old.js")) == nil)
            #expect(try await store.game(slug: "a")?.lastError == nil)
            let keys = try ["a/index.html", "a/new.js", "a/more.js", "a/offline.meta.json"].map {
                try CacheKey(url: "http://h.example/" + $0)
            }
            #expect(try await store.stagedStates(for: keys).isEmpty, "the switch installed every staged body")
        }
    }

    @Test("the manifest is switched with the files it lists")
    func manifestSwitchesWithItsVersion() async throws {
        let deploys = Deploys()
        let upstream = FakeUpstream { url, _ in deploys.answer(url) }
        try await Self.withStore { store throws in
            let runner = Self.runner(store, upstream)
            let list = GamesList.parse("http://h.example/a\n", source: "t")
            #expect(await runner.run(list).succeeded)
            deploys.version = 2
            deploys.failing = ["http://h.example/a/more.js"]
            _ = await runner.run(list)
            #expect(try await Self.body(store, "http://h.example/a/offline.meta.json")?.contains("old.js") == true)
            deploys.failing = []
            _ = await runner.run(list)
            #expect(try await Self.body(store, "http://h.example/a/offline.meta.json")?.contains("new.js") == true)
        }
    }

    @Test("a game that was never complete switches to what arrived, so it is served")
    func incompleteFirstVersionIsRecorded() async throws {
        let deploys = Deploys()
        deploys.version = 2
        deploys.failing = ["http://h.example/a/more.js"]
        let upstream = FakeUpstream { url, _ in deploys.answer(url) }
        try await Self.withStore { store throws in
            let report = await Self.runner(store, upstream).run(GamesList.parse("http://h.example/a\n", source: "t"))
            #expect(report.games.first?.state == .partial)
            #expect(report.games.first?.previousVersionKept == false)
            #expect(report.games.first?.filesCached == 3)
            #expect(try await Self.body(store, "http://h.example/a/new.js") == "http://h.example/a/new.js")
            #expect(try await store.game(slug: "a")?.state == .partial)
        }
    }

    @Test("a game's page is its first file, fetched on every run: the game is ready only when its page is cached")
    func gamePageCountsForReadiness() async throws {
        let deploys = Deploys()
        deploys.failing = ["http://www.example/play/a"]
        let upstream = FakeUpstream { url, _ in deploys.answer(url) }
        try await Self.withStore { store throws in
            let runner = Self.runner(store, upstream)
            let list = GamesList.parse("http://h.example/a page http://www.example/play/a\n", source: "t")
            let first = await runner.run(list)
            #expect(first.games.first?.state == .partial)
            #expect(first.games.first?.filesListed == 4)
            #expect(first.games.first?.failures.map(\.url) == ["http://www.example/play/a"])
            #expect(first.pagesListed == 0, "a game's page is not a page of its own")
            #expect(try await store.game(slug: "a")?.state == .partial)

            deploys.failing = []
            let second = await runner.run(list)
            #expect(second.succeeded)
            let files = try await store.gameFiles(slug: "a")
            #expect(files.first?.url == "http://www.example/play/a" && files.first?.state == .cached)
            #expect(try await store.game(slug: "a")?.pageURL == "http://www.example/play/a")
            #expect(try await store.entry(for: try CacheKey(url: "http://www.example/play/a"))?.kind == .precached)

            deploys.version = 2
            let pageFetches = upstream.attempts("http://www.example/play/a")
            #expect(await runner.run(list).succeeded)
            #expect(upstream.attempts("http://www.example/play/a") == pageFetches + 1, "fetched on every run")
            #expect(upstream.attempts("http://h.example/a/keep.js") == 1)
            #expect(try await Self.body(store, "http://www.example/play/a") == "play v2")
        }
    }

    @Test("a page line is fetched on every run whatever its path; a failed refresh keeps the copy recorded as cached")
    func pageLines() async throws {
        let down = ManifestVersion()
        let upstream = FakeUpstream { url, _ in
            if down.isNew { return .failure(.connectionRefused) }
            return url == "http://h.example/lab" ? .ok("<p>lab", contentType: "text/html") : .status(404)
        }
        try await Self.withStore { store throws in
            let runner = Self.runner(store, upstream)
            let list = GamesList.parse("page http://h.example/lab\n", source: "t")
            let first = await runner.run(list)
            #expect(first.succeeded)
            #expect(first.pagesListed == 1)
            #expect(upstream.attempts("http://h.example/offline.meta.json") == 0, "not read as a game")
            #expect(try await Self.body(store, "http://h.example/lab") == "<p>lab")
            #expect(try await store.pages().map(\.state) == [.cached])

            down.isNew = true
            let second = await runner.run(list)
            #expect(!second.succeeded)
            #expect(second.pageFailures.map(\.url) == ["http://h.example/lab"])
            let page = try #require(try await store.pages().first)
            #expect(page.state == .cached)
            #expect(page.reason?.hasPrefix("not refreshed (") == true)
            #expect(try await Self.body(store, "http://h.example/lab") == "<p>lab")
        }
    }

    @Test("bodies staged for a version no run needs any more are removed at the end of the next run")
    func abandonedStagedBodiesAreRemoved() async throws {
        let deploys = Deploys()
        let upstream = FakeUpstream { url, _ in deploys.answer(url) }
        try await Self.withStore { store throws in
            let runner = Self.runner(store, upstream)
            let list = GamesList.parse("http://h.example/a\n", source: "t")
            #expect(await runner.run(list).succeeded)
            deploys.version = 2
            deploys.failing = ["http://h.example/a/more.js"]
            _ = await runner.run(list)
            let index = try CacheKey(url: "http://h.example/a/index.html")
            let newFile = try CacheKey(url: "http://h.example/a/new.js")
            #expect(try await store.stagedStates(for: [index, newFile]).count == 2)

            // Version 1 again: new.js is not needed any more, and index.html is staged anew.
            deploys.version = 1
            deploys.failing = []
            #expect(await runner.run(list).succeeded)
            #expect(try await store.stagedStates(for: [index, newFile]).isEmpty)
            #expect(try await Self.body(store, "http://h.example/a/index.html") == "v1")
            let verification = try await store.verifyEntries(repair: false)
            #expect(verification.problems.isEmpty, "no orphan body is left: \(verification.problems)")
        }
    }
}

/// A switch a fake upstream's responder reads, flipped between runs.
final class ManifestVersion: Sendable {
    private let state = Mutex(false)

    var isNew: Bool {
        get { self.state.withLock { $0 } }
        set { self.state.withLock { $0 = newValue } }
    }
}
