import Crypto
import Foundation
import GRDB
import LarderHTTP
import Synchronization
import Testing

@testable import LarderStore

/// Each install batch is made durable by one barrier between its bodies' renames and its rows'
/// commit (docs/FORMATS.md, "Crash safety"): no row may name a body the barrier has not covered.
@Suite("Store: one durability barrier per install batch")
struct InstallBarrierTests {
    /// Commits bodies `indices` at once (so they share batches); returns each one's outcome by index.
    private func commitTogether(_ store: Store, _ indices: Range<Int>) async throws -> [Int: Result<CachedEntry, any Error>] {
        try await withThrowingTaskGroup(of: (Int, Result<CachedEntry, any Error>).self) { group in
            for index in indices {
                let writer = try store.makeBodyWriter()
                try writer.write(contentsOf: sampleBody(count: 2_000 + index, seed: UInt8(index % 251)))
                let url = "http://site.example/batch/\(index).bin"
                nonisolated(unsafe) let handedOver = writer
                group.addTask {
                    do {
                        let entry = try await handedOver.commit(
                            key: try CacheKey(url: url), head: sampleHead(url: url), kind: .precached, expectedLength: nil)
                        return (index, .success(entry))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var outcomes: [Int: Result<CachedEntry, any Error>] = [:]
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// The keys among `urls` that have an entry or staged row, read through a connection of its own
    /// (as another process would see the index).
    private static func keysWithRows(_ directory: String, urls: [String]) throws -> Int {
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        return try index.read { db in
            let placeholders = databaseQuestionMarks(count: urls.count)
            let entries = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM entry WHERE key IN (\(placeholders))", arguments: StatementArguments(urls))
            let staged = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM staged_entry WHERE key IN (\(placeholders))", arguments: StatementArguments(urls))
            return (entries ?? 0) + (staged ?? 0)
        }
    }

    @Test("the barrier sees every body of its batch whole, in bodies/ once renamed, and none of their rows; the rows come after it")
    func rowsFollowTheBarrier() async throws {
        try await withTemporaryDirectory { directory in
            let urls = (0..<40).map { "http://site.example/batch/\($0).bin" }
            let contents = Mutex<[Int]>([])
            let names = Mutex<[(bodies: Int, whole: Bool, rows: Int)]>([])
            let store = Mutex<Store?>(nil)
            let holding = Atomic<Bool>(false)
            let barrier = BodyBarrier(
                flushContents: { files in
                    if contents.withLock({ $0.isEmpty }) {
                        // The first batch (body 0 alone) is held back until every other body waits
                        // behind it (or 30 s).
                        holding.store(true, ordering: .relaxed)
                        let deadline = ContinuousClock.now + .seconds(30)
                        while (store.withLock { $0?.installs.waitingCount ?? 0 }) < urls.count - files.count,
                            ContinuousClock.now < deadline
                        {
                            usleep(1_000)
                        }
                    }
                    contents.withLock { $0.append(files.count) }
                    try BodyBarrier.system.flushContents(files)
                },
                flushNames: { folders in
                    let bodies = regularFiles(under: directory + "/bodies")
                    let whole = bodies.allSatisfy { relative in
                        let contents = FileManager.default.contents(atPath: directory + "/bodies/" + relative).map { [UInt8]($0) } ?? []
                        return SHA256.hash(data: contents).map { String(format: "%02x", $0) }.joined() == relative.suffix(64)
                    }
                    let rows = (try? Self.keysWithRows(directory, urls: urls)) ?? -1
                    names.withLock { $0.append((bodies.count, whole, rows)) }
                    try BodyBarrier.system.flushNames(folders)
                }
            )
            let opened = try Store(directory: directory, migratingUpTo: nil, barrier: barrier, keepsFiles: true)
            defer { try? opened.close() }
            store.withLock { $0 = opened }

            // Body 0 first, alone; the others while its batch is held at the barrier.
            async let first = self.commitTogether(opened, 0..<1)
            let deadline = ContinuousClock.now + .seconds(30)
            while !holding.load(ordering: .relaxed), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            let outcomes = try await self.commitTogether(opened, 1..<urls.count).merging(try await first) { $1 }
            #expect(outcomes.count == urls.count)
            #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
            let batches = contents.withLock { $0 }
            #expect(batches == [1, urls.count - 1], "the bodies that finished while a batch was committed share the next barrier")
            // At each batch's second step its bodies (and the earlier batches') are whole in
            // bodies/, and only the earlier batches' rows exist.
            let seen = names.withLock { $0 }
            #expect(seen.count == batches.count)
            var committed = 0
            for (size, names) in zip(batches, seen) {
                #expect(names.whole)
                #expect(names.bodies == committed + size)
                #expect(names.rows == committed)
                committed += size
            }
            #expect(try Self.keysWithRows(directory, urls: urls) == urls.count)
            #expect(try await opened.verifyEntries(repair: false).problems.isEmpty)
        }
    }

    /// Which step of the barrier a test makes fail.
    enum FailingStep: String, CaseIterable, Sendable {
        case contents, names
    }

    @Test(
        "a batch whose barrier fails gets no rows and leaves no body behind; an earlier entry stays whole", arguments: FailingStep.allCases)
    func failedBarrierWritesNoRow(step: FailingStep) async throws {
        try await withTemporaryDirectory { directory in
            let failing = Atomic<Bool>(false)
            let failure = StoreError.io(path: directory, operation: "fdatasync", errno: EIO)
            let barrier = BodyBarrier(
                flushContents: { files in
                    if step == .contents, failing.load(ordering: .relaxed) { throw failure }
                    try BodyBarrier.system.flushContents(files)
                },
                flushNames: { folders in
                    if step == .names, failing.load(ordering: .relaxed) { throw failure }
                    try BodyBarrier.system.flushNames(folders)
                }
            )
            let store = try Store(directory: directory, migratingUpTo: nil, barrier: barrier, keepsFiles: true)
            defer { try? store.close() }
            let kept = sampleBody(count: 2_000, seed: 0)
            let keptEntry = try await store.put(kept, at: "http://site.example/batch/0.bin")
            let bodiesBefore = regularFiles(under: directory + "/bodies")
            failing.store(true, ordering: .relaxed)

            // Body 0 is the stored one again (an equal body already in place); the others are new.
            let outcomes = try await self.commitTogether(store, 0..<30)
            // Body 0 is already durable in place: when it lands in a batch of its own, that batch
            // renames nothing, has no folder to flush, and may commit; every new body must fail.
            for (index, outcome) in outcomes where index != 0 {
                #expect(throws: failure, "body \(index)") { try outcome.get() }
            }
            #expect(try Self.keysWithRows(directory, urls: (1..<30).map { "http://site.example/batch/\($0).bin" }) == 0)
            #expect(regularFiles(under: directory + "/bodies") == bodiesBefore)
            #expect(regularFiles(under: directory + "/tmp").isEmpty)
            #expect(try await store.body(at: "http://site.example/batch/0.bin") == kept)
            #expect(FileManager.default.fileExists(atPath: keptEntry.bodyPath))
            #expect(try await store.verifyEntries(repair: false).problems.isEmpty)

            failing.store(false, ordering: .relaxed)
            let retried = try await self.commitTogether(store, 0..<30)
            #expect(retried.values.allSatisfy { (try? $0.get()) != nil })
            #expect(try await store.body(at: "http://site.example/batch/29.bin") == sampleBody(count: 2_029, seed: 29))
        }
    }

    @Test("a crash between the barrier and the commit leaves durable bodies without rows: orphans, never a row without its body")
    func crashAfterTheBarrier() async throws {
        try await withTemporaryDirectory { directory in
            // The commit after the barrier fails, as a SIGKILL or a full disk there would end it:
            // a deferred foreign key that the triggers break is only checked at COMMIT.
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let old = sampleBody(count: 1_500, seed: 99)
            let oldEntry = try await store.put(old, at: "http://site.example/batch/3.bin")
            try await store.executeForTesting(
                sql: """
                    CREATE TABLE commit_guard (id INTEGER PRIMARY KEY);
                    CREATE TABLE commit_breaker (guard_id INTEGER REFERENCES commit_guard(id) DEFERRABLE INITIALLY DEFERRED);
                    CREATE TRIGGER break_insert AFTER INSERT ON entry BEGIN INSERT INTO commit_breaker VALUES (42); END;
                    CREATE TRIGGER break_update AFTER UPDATE ON entry BEGIN INSERT INTO commit_breaker VALUES (42); END;
                    """
            )

            let outcomes = try await self.commitTogether(store, 0..<12)
            #expect(outcomes.values.allSatisfy { (try? $0.get()) == nil })
            #expect(try await store.body(at: "http://site.example/batch/3.bin") == old)
            #expect(FileManager.default.fileExists(atPath: oldEntry.bodyPath))
            #expect(try await store.body(at: "http://site.example/batch/5.bin") == nil)
            let report = try await store.verifyEntries(repair: false)
            #expect(report.damage.isEmpty)
            // The new bodies passed the barrier and stay as orphans, harmless until removed.
            #expect(report.leftovers.count == 12)
        }
    }
}
