import Foundation
import LarderHTTP
import LarderStore
import Logging
import NIOCore
import Testing

@testable import LarderProxy

@Suite("Storing a body: a small one is kept in memory once committed")
struct StoringBodyTests {
    private static func budget(_ store: Store) -> StoreBudget {
        let logger = Logger(label: "test")
        return StoreBudget(store: store, budget: nil, usage: UsageRecorder(store: store, logger: logger), logger: logger)
    }

    private static func storing(_ store: Store, _ url: String, smallBodies: SmallBodyCache) throws -> StoringBody {
        let logger = Logger(label: "test")
        let target = CacheTransaction.StoreTarget(
            key: try CacheKey(url: url), url: try HTTPURL(parsing: url), requestTime: Date(), varyValues: [])
        return try #require(
            StoringBody(
                store: store, target: target, failures: StoreWriteFailures(logger: logger, now: { Date() }), budget: Self.budget(store),
                declaredLength: nil, smallBodies: smallBodies, logger: logger))
    }

    private static func commit(_ storing: StoringBody, _ store: Store) async -> Bool {
        await storing.commit(
            status: 200, headers: [HeaderField(name: "Cache-Control", value: "max-age=60")], responseTime: Date(), expectedLength: nil,
            budget: Self.budget(store), logger: Logger(label: "test"))
    }

    @Test("a body within the small-body size is in memory under its hash once committed (the next hit reads no file); a larger one is not")
    func smallBodyKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let smallBodies = SmallBodyCache(maximumBodySize: 16, capacity: 1024)

        let small = try Self.storing(store, "http://site.example/a.css", smallBodies: smallBodies)
        small.write(ByteBuffer(string: "body { "))
        small.write(ByteBuffer(string: "x: 1 }"))
        #expect(await Self.commit(small, store))
        let entry = try #require(try await store.entry(for: try CacheKey(url: "http://site.example/a.css")))
        #expect(smallBodies.body(hash: entry.bodyHash).map { String(buffer: $0) } == "body { x: 1 }")

        let large = try Self.storing(store, "http://site.example/b.js", smallBodies: smallBodies)
        large.write(ByteBuffer(string: "0123456789"))
        large.write(ByteBuffer(string: "0123456789"))
        #expect(await Self.commit(large, store))
        let largeEntry = try #require(try await store.entry(for: try CacheKey(url: "http://site.example/b.js")))
        #expect(smallBodies.body(hash: largeEntry.bodyHash) == nil)
    }
}
