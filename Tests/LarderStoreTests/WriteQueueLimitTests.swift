import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// The write queue's limits and counters (docs/SERVING.md, "Write queue limits"): checked from
/// the counters on every write, never by reading the queue.
@Suite("Store: write queue limits")
struct WriteQueueLimitTests {
    typealias Queue = WriteQueueTests

    /// The totals as the counters give them: (writes, bytes) per "origin state".
    static func totals(_ store: Store) async throws -> [String: [Int64]] {
        var totals: [String: [Int64]] = [:]
        for total in try await store.queuedWriteTotals() {
            totals["\(total.origin) \(total.state.rawValue)"] = [Int64(total.writes), total.bytes]
        }
        return totals
    }

    /// The same totals counted from the rows themselves.
    static func counted(_ store: Store) async throws -> [String: [Int64]] {
        var totals: [String: [Int64]] = [:]
        for write in try await store.queuedWrites() {
            let old = totals["\(write.origin) \(write.state.rawValue)"] ?? [0, 0]
            totals["\(write.origin) \(write.state.rawValue)"] = [old[0] + 1, old[1] + write.bodySize]
        }
        return totals
    }

    @Test("past maxWrites a write is refused, naming the limit, and nothing kept is lost; one that replaces another still fits")
    func count() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let limits = WriteQueueLimits(maxWrites: 3, maxBytes: 1 << 20)
            for label in ["a", "b", "c"] {
                _ = try await store.enqueueWrite(Queue.new(label, key: label), limits: limits)
            }
            await #expect(throws: WriteQueueError.full(.writes(limit: 3))) {
                try await store.enqueueWrite(Queue.new("d"), limits: limits)
            }
            // A newer "b" replaces the older: still three.
            let (newer, superseded) = try await store.enqueueWrite(Queue.new("b2", key: "b"), limits: limits)
            #expect(superseded.count == 1)
            #expect(try await Queue.labels(store) == ["a", "c", "b2"])
            #expect(try await store.queuedWrite(id: newer.id) != nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/queue").sorted()
            #expect(files.count == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/tmp").isEmpty)
        }
    }

    @Test("past maxBytes a write is refused, and the write it would have replaced stays")
    func bytes() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // Each body is {"label":"X"}: 13 bytes with a one-letter label.
            let limits = WriteQueueLimits(maxWrites: 100, maxBytes: 30)
            _ = try await store.enqueueWrite(Queue.new("a", key: "k"), limits: limits)
            _ = try await store.enqueueWrite(Queue.new("b"), limits: limits)
            await #expect(throws: WriteQueueError.full(.bytes(limit: 30))) {
                try await store.enqueueWrite(Queue.new("c"), limits: limits)
            }
            // 26 bytes kept; a 15-byte write replacing the 13-byte "a" makes 28: it fits.
            _ = try await store.enqueueWrite(Queue.new("a22", key: "k"), limits: limits)
            // One of 19 bytes replacing it would make 32: refused, and "a22" stays.
            await #expect(throws: WriteQueueError.full(.bytes(limit: 30))) {
                try await store.enqueueWrite(Queue.new("a222222", key: "k"), limits: limits)
            }
            #expect(try await Queue.labels(store) == ["b", "a22"])
        }
    }

    @Test("the counters follow every change: queue, supersede, dead-letter, retry, drop, deliver")
    func counters() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let other = "http://other.example:8080"
            try await Queue.enqueue(store, "a1", key: "g1")
            try await Queue.enqueue(store, "a2", key: "g1")
            let b = try await Queue.enqueue(store, "b1", origin: other)
            let c = try await Queue.enqueue(store, "c1")
            #expect(try await Self.totals(store) == Self.counted(store))
            #expect(try await Self.totals(store)["\(WriteQueueTests.api) pending"] == [2, 28])
            try await store.deadLetterWrite(id: c.id, reason: "the origin answered 400")
            #expect(try await Self.totals(store) == Self.counted(store))
            #expect(try await store.queuedWriteCounts() == [.pending: 2, .deadLetter: 1])
            #expect(try await store.retryWrite(id: c.id))
            #expect(try await Self.totals(store) == Self.counted(store))
            #expect(try await store.dropWrite(id: b.id))
            #expect(try await store.pendingWriteOrigins() == [WriteQueueTests.api])
            #expect(try await Self.totals(store) == Self.counted(store))
            #expect(try await store.expireWrites(createdBefore: Date().addingTimeInterval(60)) == 2)
            #expect(try await Self.totals(store) == Self.counted(store))
            for write in try await store.queuedWrites() {
                try await store.completeWrite(id: write.id)
            }
            #expect(try await store.queuedWriteTotals().isEmpty)
            #expect(try await store.pendingWriteOrigins().isEmpty)
        }
    }

    @Test("an index with queued writes from before the counters gets them filled at the upgrade")
    func upgrade() async throws {
        try await withTemporaryDirectory { directory in
            let old = try Store(directory: directory, migratingUpTo: "v10")
            // Rows as a v10 store wrote them (its code is gone; the body files do not matter here).
            try await old.pool.write { db in
                for (origin, size, state) in [
                    (WriteQueueTests.api, 10, "pending"), (WriteQueueTests.api, 5, "pending"), ("http://b.example", 7, "dead-letter"),
                ] {
                    try db.execute(
                        sql: """
                            INSERT INTO queued_write (origin, method, url, headers, body_size, terminal, created_at, state)
                            VALUES (?, 'POST', ?, '[]', ?, 0, 0, ?)
                            """,
                        arguments: [origin, origin + "/save", size, state])
                }
            }
            try old.close()
            let store = try Store(directory: directory)
            defer { try? store.close() }
            #expect(try await Self.totals(store) == ["\(WriteQueueTests.api) pending": [2, 15], "http://b.example dead-letter": [1, 7]])
            #expect(try await Self.totals(store) == Self.counted(store))
        }
    }

    @Test("a page of writes: by id after the one given, at most the limit")
    func pages() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            var ids: [Int64] = []
            for index in 0..<7 {
                ids.append(
                    try await Queue.enqueue(store, "w\(index)", origin: index % 2 == 0 ? WriteQueueTests.api : "http://b.example").id)
            }
            #expect(try await store.queuedWrites(after: nil, limit: 3).map(\.id) == Array(ids[0..<3]))
            #expect(try await store.queuedWrites(after: ids[2], limit: 3).map(\.id) == Array(ids[3..<6]))
            #expect(try await store.queuedWrites(after: ids[5], limit: 3).map(\.id) == [ids[6]])
            #expect(try await store.queuedWrites(after: ids[6], limit: 3).isEmpty)
        }
    }
}
