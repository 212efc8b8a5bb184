import Foundation
import Testing

@testable import LarderStore

/// A crash at any moment never loses an accepted write, nor leaves a row without its body
/// (docs/FORMATS.md, "Write queue").
@Suite("Store: write queue after a crash")
struct WriteQueueCrashTests {
    @Test("reopened after a crash: a file without a row is removed, a row without its file dead-lettered, in-flight marks cleared")
    func reopenAfterCrash() async throws {
        try await withTemporaryDirectory { directory in
            var store = try Store(directory: directory)
            let kept = try await WriteQueueTests.enqueue(store, "kept")
            let lost = try await WriteQueueTests.enqueue(store, "lost")
            let damaged = try await WriteQueueTests.enqueue(store, "damaged")
            try await store.beginDelivery(id: kept.id, at: Date())
            // What a crash (or a hand in the folder) can leave: a body renamed before a commit that never came,
            // a body deleted, a body cut short.
            let orphan = "\(directory)/queue/\(damaged.id + 100).body"
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: orphan))
            try FileManager.default.removeItem(atPath: "\(directory)/queue/\(lost.id).body")
            try Data([1]).write(to: URL(fileURLWithPath: "\(directory)/queue/\(damaged.id).body"))
            await #expect(throws: WriteQueueError.bodyMissing(id: lost.id, path: "\(directory)/queue/\(lost.id).body")) {
                try await store.writeBody(lost)
            }
            await #expect(
                throws: WriteQueueError.bodyDamaged(
                    id: damaged.id, path: "\(directory)/queue/\(damaged.id).body", expected: damaged.bodySize, actual: 1)
            ) {
                try await store.writeBody(damaged)
            }
            store = try Store(directory: directory)
            defer { try? store.close() }

            try await store.resetInFlightWrites()
            #expect(!FileManager.default.fileExists(atPath: orphan))
            let writes = try await store.queuedWrites()
            #expect(writes.map(\.id) == [kept.id, lost.id, damaged.id])
            #expect(writes.map(\.state) == [.pending, .deadLetter, .deadLetter])
            #expect(
                writes.map(\.deadReason) == [
                    nil, "its body file is missing", "its body file has 1 bytes, not the \(damaged.bodySize) queued",
                ])
            #expect(writes.allSatisfy { !$0.inFlight })
            #expect(writes[0].attempts == 1)
            #expect(try await store.writeBody(writes[0]) == Array(#"{"label":"kept"}"#.utf8))
            // Settled: the pass at start-up finds nothing more.
            let leftovers = try await store.removeLeftovers(pause: .zero)
            #expect(leftovers.orphanQueuedBodies.isEmpty)
            #expect(leftovers.queuedWritesWithoutBody == [lost.id, damaged.id])
            #expect(try await store.queuedWrites() == writes)
        }
    }

    @Test("the leftover pass removes a queue file without a row and reports it")
    func leftoverPass() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let write = try await WriteQueueTests.enqueue(store, "kept")
            let orphan = "\(directory)/queue/\(write.id + 1).body"
            try Data([1]).write(to: URL(fileURLWithPath: orphan))
            // Not a queue body: left alone.
            let stranger = "\(directory)/queue/notes.txt"
            try Data([1]).write(to: URL(fileURLWithPath: stranger))
            // `larder verify` reports it, harmless, and leaves it unless repairing.
            let verified = try await store.verifyEntries(repair: false)
            #expect(verified.leftovers == [VerificationReport.Problem(subject: orphan, kind: .orphanBody, repaired: false)])
            #expect(FileManager.default.fileExists(atPath: orphan))
            let leftovers = try await store.removeLeftovers(pause: .zero)
            #expect(leftovers.orphanQueuedBodies == [orphan])
            #expect(!FileManager.default.fileExists(atPath: orphan))
            #expect(FileManager.default.fileExists(atPath: stranger))
            #expect(FileManager.default.fileExists(atPath: "\(directory)/queue/\(write.id).body"))
        }
    }

    @Test("a write whose commit fails leaves no file, and what it would have superseded stays")
    func failedCommit() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let older = try await WriteQueueTests.enqueue(store, "update A1", key: "A")
            // A deferred foreign key broken by a trigger fails only at COMMIT, as a full disk does.
            try await store.executeForTesting(
                sql: """
                    CREATE TABLE commit_guard (id INTEGER PRIMARY KEY);
                    CREATE TABLE commit_breaker (guard_id INTEGER REFERENCES commit_guard(id) DEFERRABLE INITIALLY DEFERRED);
                    CREATE TRIGGER break_insert AFTER INSERT ON queued_write BEGIN INSERT INTO commit_breaker VALUES (42); END;
                    """
            )
            await #expect(throws: (any Error).self) {
                try await store.enqueueWrite(WriteQueueTests.new("update A2", key: "A"))
            }
            #expect(try await store.queuedWrites().map(\.id) == [older.id])
            #expect(regularFiles(under: directory + "/queue") == ["\(older.id).body"])
            #expect(regularFiles(under: directory + "/tmp").isEmpty)
            #expect(try await store.writeBody(older) == Array(#"{"label":"update A1"}"#.utf8))
        }
    }
}
