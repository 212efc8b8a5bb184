import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderPack

/// Export from one cache, import into another (`PackExporter.swift`, `PackImporter.swift`).
struct PackRoundTripTests {
    static let flip = "https://g.example/flip"
    static let maze = "https://g.example/maze"
    static let about = "https://g.example/about.html"

    /// Precaches, as a run would record them, two games (one file shared by two URLs) and a page,
    /// the games at `lastRun`, the files answered at `date`, their bodies varied by `seed`.
    private func fill(_ store: Store, lastRun: TimeInterval, date: TimeInterval, seed: UInt8) async throws {
        let flipFiles = [Self.flip + "/index.html", Self.flip + "/a.js", Self.flip + "/copy-of-a.js"]
        try await store.put(sampleBody(count: 3000, seed: seed), at: flipFiles[0], date: date)
        try await store.put(sampleBody(count: 70_000, seed: seed &+ 1), at: flipFiles[1], date: date)
        try await store.put(sampleBody(count: 70_000, seed: seed &+ 1), at: flipFiles[2], date: date)
        try await store.put(Array(#"{"files": []}"#.utf8), at: Self.flip + "/offline.meta.json", date: date)
        try await store.recordGame("flip", root: Self.flip, urls: flipFiles, lastRun: lastRun)
        let mazeFiles = [Self.maze + "/index.html"]
        try await store.put(sampleBody(count: 5000, seed: seed &+ 2), at: mazeFiles[0], date: date)
        try await store.recordGame("maze", root: Self.maze, urls: mazeFiles, lastRun: lastRun)
        try await store.put(sampleBody(count: 100, seed: seed &+ 3), at: Self.about, date: date)
        try await store.savePages([
            PrecachePageRecord(key: try CacheKey(url: Self.about), url: Self.about, state: .cached, reason: nil, lastRun: Date())
        ])
    }

    private var selection: PackSelection {
        get throws {
            PackSelection(
                games: try [Self.flip, Self.maze, "https://g.example/never"].map {
                    PackSelection.Game(root: $0, companionKeys: [try CacheKey(url: $0 + "/offline.meta.json")])
                },
                pages: [PackSelection.Page(key: try CacheKey(url: Self.about), url: Self.about)])
        }
    }

    /// Exports `store`'s games and page to `path`; returns the manifest.
    @discardableResult
    private func export(_ store: Store, to path: String) async throws -> PackManifest {
        let exporter = PackExporter(store: store)
        let manifest = try await exporter.plan(try self.selection, larderVersion: "test")
        _ = try withFileForWriting(path) { try exporter.write(manifest, to: $0, path: path) }
        return manifest
    }

    private func importPack(_ path: String, into store: Store, dryRun: Bool = false) async throws -> PackImportReport {
        try await withFileForReading(path) { try await PackImporter(store: store).run(descriptor: $0, path: path, dryRun: dryRun) }
    }

    @Test
    func aPersonalCopyOfAPageIsNeverPacked() async throws {
        try await withTemporaryDirectory { directory in
            let source = try Store(directory: directory + "/a")
            defer { try? source.close() }
            try await self.fill(source, lastRun: 1_000, date: 1_000, seed: 1)
            // A pupil's logged-in visit to the same page, stored for that pupil alone.
            let owner = AnswerOwner(
                client: .remote(address: "10.0.0.2"), request: [HeaderField(name: "Cookie", value: "s=alice")],
                url: try HTTPURL(parsing: Self.about))
            let body = Array("alice's page".utf8)
            let writer = try source.makeBodyWriter()
            try writer.write(contentsOf: body)
            let head = StoredResponseHead(
                url: Self.about, status: 200, headers: [HeaderField(name: "Date", value: httpDate(2_000))],
                requestTime: Date(timeIntervalSince1970: 2_000), responseTime: Date(timeIntervalSince1970: 2_000),
                varyRequestHeaders: [owner.recorded])
            let personal = VaryKey.storageKey(try CacheKey(url: Self.about), values: [owner.recorded])
            try await writer.commit(key: personal, head: head, kind: .runtime, expectedLength: Int64(body.count))

            let manifest = try await self.export(source, to: directory + "/pack.tar")
            let keys = manifest.entries.map(\.key)
            #expect(keys.contains(try CacheKey(url: Self.about).rawValue))
            #expect(!keys.contains(personal.rawValue))
            #expect(manifest.pages.first?.entryKeys == [try CacheKey(url: Self.about).rawValue])
        }
    }

    @Test
    func aPackMakesTheGamesReadyInAnotherCacheAndImportingAgainChangesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let source = try Store(directory: directory + "/a")
            defer { try? source.close() }
            try await self.fill(source, lastRun: 1_000, date: 1_000, seed: 1)
            let manifest = try await self.export(source, to: directory + "/pack.tar")
            #expect(manifest.missing.map(\.url) == ["https://g.example/never"])
            #expect(manifest.entries.count == 6)
            #expect(manifest.bodies.count == 5, "the shared body is in the pack once")

            let target = try Store(directory: directory + "/b")
            defer { try? target.close() }
            let dry = try await self.importPack(directory + "/pack.tar", into: target, dryRun: true)
            #expect(dry.entriesInstalled == 6)
            #expect(try await target.games().isEmpty, "a dry run writes nothing")

            let report = try await self.importPack(directory + "/pack.tar", into: target)
            #expect(report.succeeded)
            #expect(report.games.map(\.outcome) == [.installed(state: "ready"), .installed(state: "ready")])
            #expect(report.entriesInstalled == 6)
            for url in [Self.flip + "/index.html", Self.flip + "/a.js", Self.flip + "/copy-of-a.js", Self.maze + "/index.html", Self.about]
            {
                #expect(try await target.body(at: url) == source.body(at: url), "\(url)")
                let copied = try await target.entry(for: try CacheKey(url: url))
                let original = try await source.entry(for: try CacheKey(url: url))
                #expect(copied?.headers == original?.headers)
                #expect(copied?.responseTime == original?.responseTime)
                #expect(copied?.kind == .precached)
            }
            let games = try await target.games()
            #expect(games.map(\.slug) == ["flip", "maze"])
            #expect(games.allSatisfy { $0.isComplete })
            #expect(try await target.gameFiles(slug: "flip").count == 3)
            #expect(try await target.pages().map(\.url) == [Self.about])

            let again = try await self.importPack(directory + "/pack.tar", into: target)
            #expect(again.games.map(\.outcome) == [.upToDate, .upToDate])
            #expect(again.entriesInstalled == 0)
            #expect(again.pagesInstalled == 0)
            #expect(try await target.verifyEntries(repair: false).isClean)
        }
    }

    @Test
    func anOlderPackNeverReplacesNewerCopies() async throws {
        try await withTemporaryDirectory { directory in
            let source = try Store(directory: directory + "/a")
            defer { try? source.close() }
            try await self.fill(source, lastRun: 1_000, date: 1_000, seed: 1)
            try await self.export(source, to: directory + "/old.tar")
            try await self.fill(source, lastRun: 2_000, date: 2_000, seed: 50)
            try await self.export(source, to: directory + "/new.tar")

            let target = try Store(directory: directory + "/b")
            defer { try? target.close() }
            #expect(try await self.importPack(directory + "/new.tar", into: target).succeeded)
            let old = try await self.importPack(directory + "/old.tar", into: target)
            #expect(old.games.map(\.outcome) == [.keptNewer, .keptNewer])
            #expect(old.entriesInstalled == 0)
            #expect(old.pagesKept == 1)
            #expect(try await target.body(at: Self.flip + "/a.js") == sampleBody(count: 70_000, seed: 51))
            #expect(try await target.body(at: Self.about) == sampleBody(count: 100, seed: 53))

            // Into a cache holding the old version, the new pack replaces it.
            let other = try Store(directory: directory + "/c")
            defer { try? other.close() }
            #expect(try await self.importPack(directory + "/old.tar", into: other).succeeded)
            let newer = try await self.importPack(directory + "/new.tar", into: other)
            #expect(newer.games.map(\.outcome) == [.installed(state: "ready"), .installed(state: "ready")])
            #expect(try await other.body(at: Self.flip + "/a.js") == sampleBody(count: 70_000, seed: 51))
        }
    }

    @Test
    func aDamagedBodyKeepsItsGameOutAndInstallsTheRest() async throws {
        try await withTemporaryDirectory { directory in
            let source = try Store(directory: directory + "/a")
            defer { try? source.close() }
            try await self.fill(source, lastRun: 1_000, date: 1_000, seed: 1)
            try await self.export(source, to: directory + "/pack.tar")
            var pack = try Data(contentsOf: URL(fileURLWithPath: directory + "/pack.tar"))
            let body = Data(sampleBody(count: 70_000, seed: 2))
            let range = try #require(pack.range(of: body))
            pack[range.lowerBound + 1000] ^= 0xFF
            try pack.write(to: URL(fileURLWithPath: directory + "/pack.tar"))

            let target = try Store(directory: directory + "/b")
            defer { try? target.close() }
            let report = try await self.importPack(directory + "/pack.tar", into: target)
            #expect(!report.succeeded)
            #expect(report.damaged.count == 2, "both entries sharing the body: \(report.damaged)")
            #expect(report.damaged.first?.contains(Self.flip + "/a.js") == true)
            guard case .notInstalled(let reason) = report.games.first?.outcome else {
                Issue.record("flip: \(String(describing: report.games.first))")
                return
            }
            #expect(reason.contains("a.js"))
            #expect(report.games.last?.outcome == .installed(state: "ready"))
            #expect(try await target.games().map(\.slug) == ["maze"])
            #expect(try await target.entry(for: try CacheKey(url: Self.flip + "/index.html")) == nil, "staged, never served")
            #expect(try await target.entry(for: try CacheKey(url: Self.flip + "/a.js")) == nil)
            #expect(try await target.verifyEntries(repair: false).isClean)
        }
    }

    @Test
    func badInputIsRefusedAndChangesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let source = try Store(directory: directory + "/a")
            defer { try? source.close() }
            try await self.fill(source, lastRun: 1_000, date: 1_000, seed: 1)
            let manifest = try await self.export(source, to: directory + "/pack.tar")
            let pack = try Data(contentsOf: URL(fileURLWithPath: directory + "/pack.tar"))
            let target = try Store(directory: directory + "/b")
            defer { try? target.close() }

            func refusal(_ bytes: Data) async throws -> PackError? {
                let path = directory + "/bad.tar"
                try bytes.write(to: URL(fileURLWithPath: path))
                do {
                    _ = try await self.importPack(path, into: target)
                    return nil
                } catch let error as PackError {
                    return error
                }
            }
            guard case .notAPack? = try await refusal(Data()) else {
                Issue.record("empty")
                return
            }
            guard case .notAPack? = try await refusal(Data(sampleBody(count: 4096, seed: 7))) else {
                Issue.record("noise")
                return
            }
            guard case .truncated? = try await refusal(pack.prefix(pack.count / 2)) else {
                Issue.record("half")
                return
            }

            var newer = manifest
            newer.version = 2
            let path = directory + "/v2.tar"
            try withFileForWriting(path) { descriptor in
                let writer = TarWriter(descriptor: descriptor, path: path)
                let json = Array(try JSONEncoder().encode(newer))
                try writer.beginFile(name: PackManifest.fileName, size: Int64(json.count), modified: 0)
                try writer.write(json)
                try writer.endFile()
                try writer.finish()
            }
            guard case .unsupportedVersion(_, 2, 1)? = try await refusal(try Data(contentsOf: URL(fileURLWithPath: path))) else {
                Issue.record("version 2")
                return
            }
            #expect(try await target.games().isEmpty, "no game was switched")
            #expect(try await target.verifyEntries(repair: false).isClean)
        }
    }
}
