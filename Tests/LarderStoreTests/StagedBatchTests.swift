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

    @Test("one barrier for the whole batch: contents flushed before any rename or row, names after the renames and before the rows")
    func killSafeOrder() async throws {
        try await withTemporaryDirectory { directory in
            let count = 60
            let steps = Mutex<[String]>([])
            let barrier = BodyBarrier(
                flushContents: { files in
                    let bodies = regularFiles(under: directory + "/bodies").count
                    let rows = (try? Self.stagedRows(directory, count: count)) ?? -1
                    steps.withLock { $0.append("contents \(files.count): \(bodies) bodies, \(rows) rows") }
                    try BodyBarrier.system.flushContents(files)
                },
                flushNames: { folders in
                    let whole = regularFiles(under: directory + "/bodies").allSatisfy { relative in
                        let contents = FileManager.default.contents(atPath: directory + "/bodies/" + relative).map { [UInt8]($0) } ?? []
                        return SHA256.hash(data: contents).map { String(format: "%02x", $0) }.joined() == relative.suffix(64)
                    }
                    let bodies = regularFiles(under: directory + "/bodies").count
                    let rows = (try? Self.stagedRows(directory, count: count)) ?? -1
                    steps.withLock { $0.append("names: \(bodies) bodies, whole \(whole), \(rows) rows") }
                    try BodyBarrier.system.flushNames(folders)
                }
            )
            let store = try Store(directory: directory, migratingUpTo: nil, barrier: barrier)
            defer { try? store.close() }

            let outcomes = await store.stage(try Self.bodies(store, count: count))

            #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
            #expect(steps.withLock { $0 } == ["contents \(count): 0 bodies, 0 rows", "names: \(count) bodies, whole true, 0 rows"])
            #expect(try Self.stagedRows(directory, count: count) == count)
        }
    }

    @Test("a batch whose names barrier fails stages nothing and leaves no body behind")
    func failedBarrierStagesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let failure = StoreError.io(path: directory, operation: "fsync", errno: EIO)
            let barrier = BodyBarrier(
                flushContents: { try BodyBarrier.system.flushContents($0) },
                flushNames: { _ in throw failure }
            )
            let store = try Store(directory: directory, migratingUpTo: nil, barrier: barrier)
            defer { try? store.close() }

            let outcomes = await store.stage(try Self.bodies(store, count: 20))

            for outcome in outcomes {
                #expect(throws: failure) { try outcome.get() }
            }
            #expect(try Self.stagedRows(directory, count: 20) == 0)
            #expect(regularFiles(under: directory + "/bodies").isEmpty)
            #expect(regularFiles(under: directory + "/tmp").isEmpty)
        }
    }
}
