import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// Queued credentials rest on disk only while their write is pending (docs/SERVING.md, "What is
/// private and where it is kept").
@Suite("Store: queued credentials")
struct WriteQueueCredentialsTests {
    static let headers = [
        HeaderField(name: "Authorization", value: "Bearer a"), HeaderField(name: "Cookie", value: "sid=b"),
        HeaderField(name: "X-Api-Key", value: "c"), HeaderField(name: "Content-Type", value: "application/json"),
        HeaderField(name: "Idempotency-Key", value: "k"),
    ]
    static let withoutCredentials = [
        HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Idempotency-Key", value: "k"),
    ]

    static func enqueue(_ store: Store, createdAt: Date = Date()) async throws -> QueuedWrite {
        try await store.enqueueWrite(
            NewQueuedWrite(
                origin: "https://api.example", method: "POST", url: "https://api.example/save", headers: Self.headers,
                body: Array("{}".utf8), supersedeKey: nil, terminal: false, createdAt: createdAt)
        ).write
    }

    @Test("a pending write keeps its credentials; dead-lettered (refused, expired or without its body) it keeps only its other headers")
    func deadLettersForgetCredentials() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let now = Date()
            let refused = try await Self.enqueue(store)
            let expired = try await Self.enqueue(store, createdAt: now.addingTimeInterval(-8 * 86_400))
            let bodiless = try await Self.enqueue(store)
            let pending = try await Self.enqueue(store)

            try await store.deadLetterWrite(id: refused.id, reason: "the origin answered 400")
            #expect(try await store.expireWrites(createdBefore: now.addingTimeInterval(-7 * 86_400)) == 1)
            try FileManager.default.removeItem(atPath: "\(directory)/queue/\(bodiless.id).body")
            try await store.resetInFlightWrites()

            for id in [refused.id, expired.id, bodiless.id] {
                let write = try #require(try await store.queuedWrite(id: id))
                #expect(write.state == .deadLetter)
                #expect(write.headers == Self.withoutCredentials, "write \(id)")
            }
            #expect(try await store.queuedWrite(id: pending.id)?.headers == Self.headers)
        }
    }
}
