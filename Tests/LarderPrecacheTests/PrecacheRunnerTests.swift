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

    @Test("a manifest that cannot be fetched fails its game but forgets nothing already cached")
    func failedManifestKeepsFiles() async throws {
        let down = ManifestVersion()
        let upstream = FakeUpstream { url, _ in
            if url == "http://h.example/a/offline.meta.json" {
                return down.isNew ? .failure(.connectionRefused) : Self.manifest(["a/x.js"])
            }
            return url.hasSuffix("metadata.json") ? .status(404) : .ok(url)
        }
        try await Self.withStore { store in
            let runner = PrecacheRunner(store: store, upstream: upstream, options: Self.fastOptions())
            let list = GamesList.parse("http://h.example/a\n", source: "t")
            #expect(await runner.run(list).succeeded)
            down.isNew = true
            let report = await runner.run(list)
            #expect(report.games.first?.state == .failed)
            #expect(report.games.first?.error?.contains("offline.meta.json") == true)
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

/// A switch a fake upstream's responder reads, flipped between runs.
final class ManifestVersion: Sendable {
    private let state = Mutex(false)

    var isNew: Bool {
        get { self.state.withLock { $0 } }
        set { self.state.withLock { $0 = newValue } }
    }
}
