import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore
import Logging

@testable import LarderDevOffline
@testable import LarderProxy

/// A /dev/offline over a real store in a temporary directory, answering requests without a socket.
final class DevOfflineFixture: Sendable {
    let directory: String
    let store: Store
    let statistics = ProxyStatistics(startedAt: Date())
    let storeFailures = StoreWriteFailures(logger: Logger(label: "test"), now: { Date() })
    /// A back-off window far longer than any test, so a host backing off stays so on a busy machine.
    let health = UpstreamHealthRegistry(policy: .init(initialWindow: 3600, maximumWindow: 3600), now: { Date() })
    let offline = OfflineSwitch(false)
    let jobs = QueuedPrecacheJobs()
    let offlineMisses = OfflineMisses(capacity: 5)
    /// The browser's own, grouped as the proxy groups them.
    let browserMisses = OfflineMisses(capacity: 5, grouping: .ignoreQuery)
    /// The routes **Answer offline** adds, in the fixture's directory.
    let answeredOffline: AnsweredOfflineRoutes
    /// The registry /metrics emits; the proxy's counters are made with its factory, as
    /// `ProxyServer` makes them.
    let metrics = MetricsExposition()
    let pages: DevOfflinePages
    /// The proxy's own origin in these tests.
    static let ownOrigin = "http://127.0.0.1:8080"

    init(maxSize: Int64? = nil, statusOrigins: [String] = [], now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("devoffline-\(UUID().uuidString)").path
        self.store = try Store(directory: self.directory)
        _ = ProxyMetrics(factory: self.metrics.factory)
        self.answeredOffline = AnsweredOfflineRoutes(directory: self.directory, logger: Logger(label: "test"))
        var configuration = ProxyConfiguration()
        configuration.maxSize = maxSize
        configuration.statusOrigins = statusOrigins
        configuration.now = now
        configuration.answeredOffline = self.answeredOffline
        let proxy = ServerIntrospection(
            configuration: configuration,
            store: self.store,
            statistics: self.statistics,
            health: self.health,
            offline: self.offline,
            precacheJobs: self.jobs,
            storeFailures: self.storeFailures,
            offlineMisses: self.offlineMisses,
            browserMisses: self.browserMisses,
            ownOrigins: ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"]
        )
        self.pages = try DevOfflinePages(proxy: proxy, store: self.store, metrics: self.metrics)
    }

    deinit {
        try? self.store.close()
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    /// Stores a runtime entry for `url` with a body of `size` bytes.
    @discardableResult
    func storeEntry(
        _ url: String, key: CacheKey? = nil, size: Int = 10, contentType: String = "text/plain", kind: EntryKind = .runtime
    ) async throws -> CacheKey {
        let key = try key ?? CacheKey(url: url)
        let writer = try self.store.makeBodyWriter()
        try writer.write(contentsOf: Array(url.utf8.prefix(size)) + [UInt8](repeating: 0x2E, count: max(0, size - url.utf8.count)))
        let head = StoredResponseHead(
            url: url,
            status: 200,
            headers: [HeaderField(name: "Content-Type", value: contentType)],
            requestTime: Date(),
            responseTime: Date()
        )
        _ = try await writer.commit(key: key, head: head, kind: kind, expectedLength: nil)
        return key
    }

    /// Records a game whose files are `cached` (stored and pinned) and `failed` (with reasons).
    func storeGame(
        slug: String, displayName: String?, cached: [String], failed: [(String, String)] = [], lastRun: Date = Date()
    ) async throws {
        var files: [GameFileRecord] = []
        var bytes: Int64 = 0
        for url in cached {
            let key = try await self.storeEntry(url, size: 100, kind: .precached)
            files.append(GameFileRecord(key: key, url: url, state: .cached))
            bytes += 100
        }
        for (url, reason) in failed {
            files.append(GameFileRecord(key: try CacheKey(url: url), url: url, state: .failed, reason: reason))
        }
        let state: GameState = failed.isEmpty ? .ready : (cached.isEmpty ? .failed : .partial)
        let record = GameRecord(
            slug: slug,
            root: "http://games.example/\(slug)",
            manifestURL: "http://games.example/\(slug)/offline.meta.json",
            displayName: displayName,
            state: state,
            filesListed: files.count,
            filesCached: cached.count,
            bytes: bytes,
            lastRun: lastRun,
            lastError: nil,
            manifestRevision: nil,
            listOrder: 0
        )
        _ = try await self.store.saveGame(record, files: files)
    }

    /// `GET target` (origin-form), as OwnPages hands it over.
    func get(_ target: String, headers: [String: String] = [:]) async -> DevOfflinePages.Response {
        await self.send("GET", target, headers: headers, body: "")
    }

    /// `POST target` with a form body and the given headers.
    func post(_ target: String, form: [(String, String)], headers: [String: String]) async -> DevOfflinePages.Response {
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/x-www-form-urlencoded"
        return await self.send("POST", target, headers: headers, body: FormFields.encode(form))
    }

    func send(_ method: String, _ target: String, headers: [String: String], body: String) async -> DevOfflinePages.Response {
        var fields = [HeaderField(name: "Host", value: "127.0.0.1:8080")]
        for (name, value) in headers {
            fields.add(name: name, value: value)
        }
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let request = OwnPageRequest(
            method: method, target: target, path: path, query: OwnPages.query(of: target), headers: fields, body: Array(body.utf8),
            client: .local)
        return await self.pages.respond(to: request)
    }

    /// The JSON body of `response`.
    static func json(_ response: DevOfflinePages.Response) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any] ?? [:]
    }
}

extension String {
    /// How many times `needle` occurs.
    func occurrences(of needle: String) -> Int {
        self.components(separatedBy: needle).count - 1
    }
}
