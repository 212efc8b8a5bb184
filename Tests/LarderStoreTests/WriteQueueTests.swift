import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// The offline write queue's store: order, the supersede rules, dead letters, expiry
/// (docs/FORMATS.md, "Write queue").
@Suite("Store: write queue")
struct WriteQueueTests {
    static let api = "https://api.example"

    /// Queues a JSON body, `label` in it so the delivered bytes tell the writes apart.
    @discardableResult
    static func enqueue(
        _ store: Store,
        _ label: String,
        origin: String = Self.api,
        key: String? = nil,
        terminal: Bool = false,
        createdAt: Date = Date()
    ) async throws -> QueuedWrite {
        let write = NewQueuedWrite(
            origin: origin, method: "POST", url: origin + "/graphql",
            headers: [HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Idempotency-Key", value: label)],
            body: Array(#"{"label":"\#(label)"}"#.utf8), supersedeKey: key.map { "gameplay\u{0}" + $0 }, terminal: terminal,
            createdAt: createdAt)
        return try await store.enqueueWrite(write).write
    }

    /// The labels of the queued writes, by id.
    static func labels(_ store: Store, state: QueuedWrite.State? = nil) async throws -> [String] {
        try await store.queuedWrites().filter { state == nil || $0.state == state }.map { $0.headers.first(name: "Idempotency-Key") ?? "?" }
    }

    @Test("writes come back in order per origin, with their headers and bodies byte for byte; completed ones are gone")
    func orderPerOrigin() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let other = "http://other.example:8080"
            let first = try await Self.enqueue(store, "a1")
            try await Self.enqueue(store, "b1", origin: other)
            let second = try await Self.enqueue(store, "a2")
            #expect(second.id > first.id)
            #expect(try await store.pendingWriteOrigins() == [other, Self.api])

            let next = try #require(try await store.nextPendingWrite(origin: Self.api))
            #expect(next == first)
            #expect(
                next.headers == [
                    HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Idempotency-Key", value: "a1"),
                ])
            #expect(try await store.writeBody(next) == Array(#"{"label":"a1"}"#.utf8))
            #expect(FileManager.default.fileExists(atPath: "\(directory)/queue/\(first.id).body"))

            try await store.beginDelivery(id: first.id, at: Date(timeIntervalSince1970: 1_800_000_000))
            try await store.completeWrite(id: first.id)
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/queue/\(first.id).body"))
            #expect(try await store.nextPendingWrite(origin: Self.api)?.id == second.id)
            #expect(try await Self.labels(store) == ["b1", "a2"])
            try await store.completeWrite(id: second.id)
            #expect(try await store.nextPendingWrite(origin: Self.api) == nil)
            #expect(try await store.pendingWriteOrigins() == [other])
        }
    }

    @Test("the seed's update/complete example: a newer update replaces the older, the completion replaces both, a later update stays")
    func supersedeAndTerminal() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let a1 = try await Self.enqueue(store, "update A1", key: "A")
            let b1 = try await Self.enqueue(store, "update B1", key: "B")
            let a2 = try await store.enqueueWrite(Self.new("update A2", key: "A"))
            #expect(a2.superseded == [a1.id])
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/queue/\(a1.id).body"))
            let complete = try await store.enqueueWrite(Self.new("complete A", key: "A", terminal: true))
            #expect(complete.superseded == [a2.write.id])
            let a3 = try await store.enqueueWrite(Self.new("update A3", key: "A"))
            #expect(a3.superseded.isEmpty)
            // Writes without a key never supersede nor are superseded.
            try await Self.enqueue(store, "unkeyed 1")
            #expect(try await store.enqueueWrite(Self.new("unkeyed 2")).superseded.isEmpty)
            #expect(try await Self.labels(store) == ["update B1", "complete A", "update A3", "unkeyed 1", "unkeyed 2"])
            // A second completion does not remove the first: terminal writes are never superseded.
            let again = try await store.enqueueWrite(Self.new("complete A again", key: "A", terminal: true))
            #expect(again.superseded == [a3.write.id])
            #expect(try await Self.labels(store) == ["update B1", "complete A", "unkeyed 1", "unkeyed 2", "complete A again"])
            #expect(try await store.queuedWrite(id: b1.id)?.state == .pending)
        }
    }

    @Test("a write being delivered is never superseded; once it failed it is again")
    func inFlightNotSuperseded() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let a1 = try await Self.enqueue(store, "update A1", key: "A")
            try await store.beginDelivery(id: a1.id, at: Date(timeIntervalSince1970: 1_800_000_000))
            let a2 = try await store.enqueueWrite(Self.new("update A2", key: "A"))
            #expect(a2.superseded.isEmpty)
            let complete = try await store.enqueueWrite(Self.new("complete A", key: "A", terminal: true))
            #expect(complete.superseded == [a2.write.id])
            #expect(try await Self.labels(store) == ["update A1", "complete A"])

            try await store.recordFailedDelivery(id: a1.id, error: "connection refused")
            let failed = try #require(try await store.queuedWrite(id: a1.id))
            #expect(failed.attempts == 1)
            #expect(failed.lastAttempt == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(failed.lastError == "connection refused")
            #expect(!failed.inFlight)
            let a3 = try await store.enqueueWrite(Self.new("update A3", key: "A"))
            #expect(a3.superseded == [a1.id])
        }
    }

    @Test("dead letters are skipped, kept, and come back in their place on retry; drop removes row and file")
    func deadLetterRetryDrop() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let first = try await Self.enqueue(store, "first", key: "A")
            let second = try await Self.enqueue(store, "second")
            try await store.beginDelivery(id: first.id, at: Date())
            try await store.deadLetterWrite(id: first.id, reason: "the origin answered 400")
            let dead = try #require(try await store.queuedWrite(id: first.id))
            #expect(dead.state == .deadLetter)
            #expect(dead.deadReason == "the origin answered 400")
            #expect(!dead.inFlight)
            #expect(try await store.nextPendingWrite(origin: Self.api)?.id == second.id)
            // A dead letter is not superseded either: it is kept to be seen.
            #expect(try await store.enqueueWrite(Self.new("third", key: "A")).superseded.isEmpty)

            #expect(try await store.retryWrite(id: first.id))
            let retried = try #require(try await store.nextPendingWrite(origin: Self.api))
            #expect(retried.id == first.id)
            #expect(retried.attempts == 1)
            #expect(retried.deadReason == nil)
            #expect(try await store.retryWrite(id: 9999) == false)

            #expect(try await store.dropWrite(id: second.id))
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/queue/\(second.id).body"))
            #expect(try await store.dropWrite(id: second.id) == false)
            #expect(try await Self.labels(store) == ["first", "third"])
            // Ids are never reused, even after the newest write is dropped.
            let last = try #require(try await store.queuedWrites().last)
            #expect(try await store.dropWrite(id: last.id))
            #expect(try await Self.enqueue(store, "fourth").id > last.id)
        }
    }

    @Test("pending writes older than the retention are dead-lettered, never dropped; one being delivered waits")
    func expiry() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let old = try await Self.enqueue(store, "old", createdAt: now.addingTimeInterval(-8 * 86_400))
            let delivering = try await Self.enqueue(store, "delivering", createdAt: now.addingTimeInterval(-8 * 86_400))
            let fresh = try await Self.enqueue(store, "fresh", createdAt: now.addingTimeInterval(-86_400))
            try await store.beginDelivery(id: delivering.id, at: now)
            #expect(try await store.expireWrites(createdBefore: now.addingTimeInterval(-7 * 86_400)) == 1)
            let expired = try #require(try await store.queuedWrite(id: old.id))
            #expect(expired.state == .deadLetter)
            #expect(expired.deadReason == Store.expiredReason)
            #expect(try await store.writeBody(expired) == Array(#"{"label":"old"}"#.utf8))
            #expect(try await store.queuedWrite(id: fresh.id)?.state == .pending)
            #expect(try await store.queuedWrite(id: delivering.id)?.state == .pending)

            // Retried, an expired write gets a new retention period: the next expiry leaves it.
            #expect(try await store.retryWrite(id: old.id, now: now))
            #expect(try await store.expireWrites(createdBefore: now.addingTimeInterval(-7 * 86_400)) == 0)
            #expect(try await store.queuedWrite(id: old.id)?.state == .pending)
        }
    }

    @Test("a delivery is a claim: a write superseded, dropped or dead-lettered after it was read is not claimed, nor one claimed twice")
    func claim() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let update = try await Self.enqueue(store, "A1", key: "A")
            let read = try #require(try await store.nextPendingWrite(origin: Self.api))
            #expect(read.id == update.id)
            _ = try await Self.enqueue(store, "A2", key: "A")
            #expect(try await store.beginDelivery(id: read.id, at: now) == false, "superseded meanwhile")

            let next = try #require(try await store.nextPendingWrite(origin: Self.api))
            #expect(try await store.beginDelivery(id: next.id, at: now))
            #expect(try await store.beginDelivery(id: next.id, at: now) == false, "already in flight")
            try await store.recordFailedDelivery(id: next.id, error: "503")
            _ = try await store.dropWrite(id: next.id)
            #expect(try await store.beginDelivery(id: next.id, at: now) == false, "dropped")
            let dead = try await Self.enqueue(store, "B")
            try await store.deadLetterWrite(id: dead.id, reason: "400")
            #expect(try await store.beginDelivery(id: dead.id, at: now) == false, "dead-lettered")
        }
    }

    @Test("an index from before the queue gets its table, and its entries stay")
    func upgrade() async throws {
        try await withTemporaryDirectory { directory in
            let old = try Store(directory: directory, migratingUpTo: "v9")
            try await old.put(sampleBody(count: 100, seed: 3), at: "https://api.example/page")
            try old.close()
            let store = try Store(directory: directory)
            defer { try? store.close() }
            #expect(try await store.body(at: "https://api.example/page") == sampleBody(count: 100, seed: 3))
            let write = try await Self.enqueue(store, "first")
            #expect(try await store.queuedWrites() == [write])
        }
    }

    @Test("purging the cache, even everything, keeps queued writes")
    func purgeKeepsQueuedWrites() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(sampleBody(count: 100, seed: 1), at: "https://api.example/page")
            let write = try await Self.enqueue(store, "kept")
            #expect(try await store.removeAllEntries() == 1)
            #expect(try await store.writeBody(try #require(try await store.queuedWrite(id: write.id))) == Array(#"{"label":"kept"}"#.utf8))
        }
    }

    static func new(_ label: String, key: String? = nil, terminal: Bool = false) -> NewQueuedWrite {
        NewQueuedWrite(
            origin: Self.api, method: "POST", url: Self.api + "/graphql", headers: [HeaderField(name: "Idempotency-Key", value: label)],
            body: Array(#"{"label":"\#(label)"}"#.utf8), supersedeKey: key.map { "gameplay\u{0}" + $0 }, terminal: terminal)
    }
}
