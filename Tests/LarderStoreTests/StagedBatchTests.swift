import Crypto
import Foundation
import GRDB
import LarderHTTP
import Synchronization
import Testing

@testable import LarderStore

/// `Store.stage(_:)`: many finished bodies staged in one install batch (a precache hands a game's
/// files over this way), each succeeding or failing on its own, in the order that survives a kill
/// at any point (docs/FORMATS.md, "Crash safety").
@Suite("Store: bodies staged together in one batch")
struct StagedBatchTests {
    private static func url(_ index: Int) -> String {
        "http://site.example/staged/\(index).bin"
    }

    /// `count` written bodies to stage; body `index` is `sampleBody(count: 1_000 + index, seed: index)`.
    private static func bodies(_ store: Store, count: Int, wrongLength: Int? = nil) throws -> [StagedBody] {
        try (0..<count).map { index in
            let writer = try store.makeBodyWriter()
            let body = sampleBody(count: 1_000 + index, seed: UInt8(index % 251))
            try writer.write(contentsOf: body)
            return StagedBody(
                writer: writer, key: try CacheKey(url: Self.url(index)), head: sampleHead(url: Self.url(index)),
                expectedLength: Int64(body.count + (index == wrongLength ? 1 : 0)))
        }
    }

    /// The staged rows among the first `count` URLs, read through a connection of its own (as
    /// another process would see the index).
    private static func stagedRows(_ directory: String, count: Int) throws -> Int {
        let urls = (0..<count).map(Self.url)
        return try DatabaseQueue(path: directory + "/index.sqlite").read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM staged_entry WHERE key IN (\(databaseQuestionMarks(count: urls.count)))",
                arguments: StatementArguments(urls)) ?? 0
        }
    }

    @Test("a batch is staged whole under each body's hash; a body of the wrong length fails alone, with no row and no file")
    func stagedTogether() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let count = 40
            let wrong = 17

            let outcomes = await store.stage(try Self.bodies(store, count: count, wrongLength: wrong))

            #expect(outcomes.count == count)
            for (index, outcome) in outcomes.enumerated() {
                if index == wrong {
                    #expect(throws: StoreError.lengthMismatch(expected: 1_000 + Int64(index) + 1, actual: 1_000 + Int64(index))) {
                        try outcome.get()
                    }
                } else {
                    #expect((try? outcome.get()) == 1_000 + Int64(index))
                }
            }
            let keys = try (0..<count).map { try CacheKey(url: Self.url($0)) }
            let staged = try await store.stagedStates(for: keys)
            #expect(staged.count == count - 1)
            #expect(staged[keys[wrong]] == nil)
            // Staged, not served.
            #expect(try await store.entry(for: keys[0]) == nil)
            let hashes = Set(regularFiles(under: directory + "/bodies").map { String($0.suffix(64)) })
            for index in 0..<count where index != wrong {
                let body = sampleBody(count: 1_000 + index, seed: UInt8(index % 251))
                #expect(hashes.contains(SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()))
            }
            #expect(hashes.count == count - 1)
            #expect(regularFiles(under: directory + "/tmp").isEmpty)
        }
    }

    /// The steps a barrier took, in order.
    private final class Steps: Sendable {
        let list = Mutex<[String]>([])
    }

    /// A barrier that records each step (what it flushes, and how many entries and staged rows not
    /// durable yet the index holds meanwhile) before doing it.
    private static func recordingBarrier(_ directory: String, count: Int, steps: Steps) -> BodyBarrier {
        BodyBarrier(
            flushContents: { files in
                let places = Set(files.map { $0.path.contains("/bodies/") ? "bodies" : "tmp" }).sorted().joined(separator: ",")
                let rows = (try? Self.rows(directory, count: count)) ?? "?"
                steps.list.withLock { $0.append("contents of \(files.count) in \(places): \(rows)") }
                try BodyBarrier.system.flushContents(files)
            },
            flushNames: { folders in
                let rows = (try? Self.rows(directory, count: count)) ?? "?"
                steps.list.withLock { $0.append("names of \(folders.count) folders: \(rows)") }
                try BodyBarrier.system.flushNames(folders)
            }
        )
    }

    /// How many of the first `count` URLs have an entry, and how many a staged row not durable yet.
    private static func rows(_ directory: String, count: Int) throws -> String {
        let urls = (0..<count).map(Self.url)
        return try DatabaseQueue(path: directory + "/index.sqlite").read { db in
            let marks = databaseQuestionMarks(count: urls.count)
            let entries = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM entry WHERE key IN (\(marks))", arguments: StatementArguments(urls))
            let notDurable = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM staged_entry WHERE durable = 0 AND key IN (\(marks))", arguments: StatementArguments(urls))
            return "\(entries ?? -1) entries, \(notDurable ?? -1) not durable"
        }
    }

    /// The game whose version is the first `count` URLs, all cached.
    private static func game(count: Int) throws -> (GameRecord, [GameFileRecord]) {
        var game = sampleGame("staged")
        game.filesListed = count
        game.filesCached = count
        let files = try (0..<count).map { GameFileRecord(key: try CacheKey(url: Self.url($0)), url: Self.url($0), state: .cached) }
        return (game, files)
    }

    @Test("staging takes no barrier: the bodies are renamed into place and their rows say they are not durable yet")
    func stagingTakesNoBarrier() async throws {
        try await withTemporaryDirectory { directory in
            let count = 60
            let steps = Steps()
            let store = try Store(
                directory: directory, migratingUpTo: nil, barrier: Self.recordingBarrier(directory, count: count, steps: steps),
                keepsFiles: true)
            defer { try? store.close() }

            let outcomes = await store.stage(try Self.bodies(store, count: count))

            #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
            #expect(steps.list.withLock { $0 } == [])
            #expect(try Self.rows(directory, count: count) == "0 entries, \(count) not durable")
            #expect(regularFiles(under: directory + "/bodies").count == count)
        }
    }

    @Test(
        "a version's switch is its one barrier: every staged body's contents, then each of their folders once, before any row is installed")
    func theSwitchIsTheBarrier() async throws {
        try await withTemporaryDirectory { directory in
            let count = 60
            let steps = Steps()
            let store = try Store(
                directory: directory, migratingUpTo: nil, barrier: Self.recordingBarrier(directory, count: count, steps: steps),
                keepsFiles: true)
            defer { try? store.close() }
            _ = await store.stage(try Self.bodies(store, count: count))
            let folders = Set(regularFiles(under: directory + "/bodies").map { $0.prefix(2) }).count
            let (game, files) = try Self.game(count: count)

            let outcome = try await store.saveGameVersion(game, files: files, installing: Set(files.map(\.key)))

            #expect(!outcome.keptPrevious)
            #expect(
                steps.list.withLock { $0 } == [
                    "contents of \(count) in bodies: 0 entries, \(count) not durable",
                    "names of \(folders) folders: 0 entries, \(count) not durable",
                ])
            #expect(try Self.rows(directory, count: count) == "\(count) entries, 0 not durable")
        }
    }

    @Test("a switch whose barrier fails installs nothing, and its staged rows stay not durable")
    func failedSwitchBarrierInstallsNothing() async throws {
        try await withTemporaryDirectory { directory in
            let count = 20
            let failure = StoreError.io(path: directory, operation: "flush", errno: EIO)
            let barrier = BodyBarrier(flushContents: { _ in throw failure }, flushNames: { try BodyBarrier.system.flushNames($0) })
            let store = try Store(directory: directory, migratingUpTo: nil, barrier: barrier, keepsFiles: true)
            defer { try? store.close() }
            _ = await store.stage(try Self.bodies(store, count: count))
            let (game, files) = try Self.game(count: count)

            await #expect(throws: failure) {
                try await store.saveGameVersion(game, files: files, installing: Set(files.map(\.key)))
            }
            #expect(try Self.rows(directory, count: count) == "0 entries, \(count) not durable")
            #expect(try await store.game(slug: "staged") == nil)
        }
    }

    @Test("after an unclean stop, a staged body not durable yet counts as staged only when it hashes to its name")
    func uncleanStopIsChecked() async throws {
        try await withTemporaryDirectory { directory in
            let count = 3
            let keys = try (0..<count).map { try CacheKey(url: Self.url($0)) }
            do {
                // A run that stages and is stopped before its switch, on a disk.
                let store = try Store(directory: directory, migratingUpTo: nil, keepsFiles: true)
                _ = await store.stage(try Self.bodies(store, count: count))
                try store.close()
            }
            // What a power cut can leave of a body not flushed: its size, other bytes.
            let damaged = sampleBody(count: 1_001, seed: 1)
            let path =
                directory + "/bodies/" + SHA256.hash(data: damaged).map { String(format: "%02x", $0) }.joined().prefix(2) + "/"
                + SHA256.hash(data: damaged).map { String(format: "%02x", $0) }.joined()
            var bytes = damaged
            bytes[0] ^= 0xff
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            let store = try Store(directory: directory, migratingUpTo: nil, keepsFiles: true)
            defer { try? store.close() }
            let staged = try await store.stagedStates(for: keys)

            #expect(Set(staged.keys) == [keys[0], keys[2]], "the damaged body is fetched again")
        }
    }

    @Test("an entry whose body is a staged one not durable yet flushes that body before its row is written")
    func reusedStagedBodyIsFlushed() async throws {
        try await withTemporaryDirectory { directory in
            let steps = Steps()
            let store = try Store(
                directory: directory, migratingUpTo: nil, barrier: Self.recordingBarrier(directory, count: 1, steps: steps),
                keepsFiles: true)
            defer { try? store.close() }
            _ = await store.stage(try Self.bodies(store, count: 1))

            try await store.put(sampleBody(count: 1_000, seed: 0), at: "http://site.example/elsewhere.bin")

            #expect(
                steps.list.withLock { $0 } == [
                    "contents of 1 in tmp: 0 entries, 1 not durable",
                    "contents of 1 in bodies: 0 entries, 1 not durable",
                    "names of 1 folders: 0 entries, 1 not durable",
                ])
            #expect(try await store.body(at: "http://site.example/elsewhere.bin") == sampleBody(count: 1_000, seed: 0))
        }
    }
}
