import Foundation
import LarderStore
import Testing

/// Totals from counts given per kind.
func expectedTotals(runtime: (entries: Int, bytes: Int64), precached: (entries: Int, bytes: Int64)) -> StoreTotals {
    StoreTotals(
        entries: runtime.entries + precached.entries,
        bytes: runtime.bytes + precached.bytes,
        runtimeEntries: runtime.entries,
        runtimeBytes: runtime.bytes,
        precachedEntries: precached.entries,
        precachedBytes: precached.bytes
    )
}

struct StoreTotalsTests {
    @Test
    func totalsFollowInsertsReplacementsPinsAndRemovals() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            #expect(try await store.totals() == .zero)

            let shared = sampleBody(count: 1000, seed: 60)
            try await store.put(shared, at: "https://example.com/a")
            try await store.put(shared, at: "https://example.com/b")
            try await store.put(sampleBody(count: 300, seed: 61), at: "https://example.com/c", kind: .precached)
            #expect(try await store.totals() == expectedTotals(runtime: (2, 2000), precached: (1, 300)))
            #expect(
                try await store.statistics()
                    == StoreStatistics(entries: 3, bodies: 2, bodyBytes: 1300, precachedEntries: 1, precachedBytes: 300)
            )

            // Replacing with a body of another size changes the bytes, not the count.
            try await store.put(sampleBody(count: 1500, seed: 62), at: "https://example.com/a")
            #expect(try await store.totals() == expectedTotals(runtime: (2, 2500), precached: (1, 300)))
            // Replacing with the same body changes nothing.
            try await store.put(shared, at: "https://example.com/b")
            #expect(try await store.totals() == expectedTotals(runtime: (2, 2500), precached: (1, 300)))

            // A precached commit over a runtime entry moves it to the precached totals, with its new size.
            try await store.put(sampleBody(count: 700, seed: 63), at: "https://example.com/b", kind: .precached)
            #expect(try await store.totals() == expectedTotals(runtime: (1, 1500), precached: (2, 1000)))
            // A runtime commit over a precached entry keeps it precached.
            try await store.put(sampleBody(count: 800, seed: 64), at: "https://example.com/b")
            #expect(try await store.totals() == expectedTotals(runtime: (1, 1500), precached: (2, 1100)))

            // Pinning moves an entry; pinning it again does nothing.
            #expect(try await store.pin([try cacheKey("https://example.com/a")]) == 1)
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (3, 2600)))
            #expect(try await store.pin([try cacheKey("https://example.com/a")]) == 0)
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (3, 2600)))

            try await store.put(sampleBody(count: 50, seed: 65), at: "https://example.com/d")
            #expect(try await store.removeEntry(for: try cacheKey("https://example.com/a")))
            #expect(try await store.totals() == expectedTotals(runtime: (1, 50), precached: (2, 1100)))
            #expect(try await store.removeEntry(for: try cacheKey("https://example.com/a")) == false)
            #expect(try await store.totals() == expectedTotals(runtime: (1, 50), precached: (2, 1100)))

            #expect(
                try await store.removeEntries([
                    try cacheKey("https://example.com/b"), try cacheKey("https://example.com/d"),
                ]) == 2)
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (1, 300)))
            #expect(
                try await store.statistics()
                    == StoreStatistics(entries: 1, bodies: 1, bodyBytes: 300, precachedEntries: 1, precachedBytes: 300)
            )
            try await expectCountersMatchTheEntries(store)
        }
    }

    @Test
    func totalsFollowPruningAndBulkRemoval() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let listed = try sampleFile("g/listed.js")
            let dropped = try sampleFile("g/dropped.js")
            try await store.put(sampleBody(count: 400, seed: 66), at: listed.url, kind: .precached)
            try await store.put(sampleBody(count: 500, seed: 67), at: dropped.url, kind: .precached)
            try await store.put(sampleBody(count: 60, seed: 68), at: "https://example.com/r1")
            try await store.put(sampleBody(count: 70, seed: 69), at: "https://example.com/r2")
            _ = try await store.saveGame(sampleGame("g"), files: [listed])
            #expect(try await store.totals() == expectedTotals(runtime: (2, 130), precached: (2, 900)))

            #expect(try await store.pruneUnlisted([listed.key, dropped.key]) == [dropped.key])
            #expect(try await store.totals() == expectedTotals(runtime: (2, 130), precached: (1, 400)))

            #expect(try await store.removeRuntimeEntries() == 2)
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (1, 400)))

            #expect(try await store.removeAllEntries() == 1)
            #expect(try await store.totals() == .zero)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))
            try await expectCountersMatchTheEntries(store)
        }
    }

    @Test
    func totalsCountWritesOfAnotherStoreOnTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let serve = try Store(directory: directory)
            let precache = try Store(directory: directory)
            defer {
                try? serve.close()
                try? precache.close()
            }
            try await serve.put(sampleBody(count: 100, seed: 70), at: "https://example.com/runtime")
            try await precache.put(sampleBody(count: 250, seed: 71), at: "https://example.com/pinned", kind: .precached)
            #expect(try await serve.totals() == expectedTotals(runtime: (1, 100), precached: (1, 250)))
            #expect(try await precache.totals() == expectedTotals(runtime: (1, 100), precached: (1, 250)))

            // Both write at once, some of it to the same keys; the counters end exact in both.
            let perStore = 20
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<perStore {
                    group.addTask {
                        try await serve.put(
                            sampleBody(count: 10 + index, seed: UInt8(index)), at: "https://s.example/\(index)")
                    }
                    group.addTask {
                        try await precache.put(
                            sampleBody(count: 10 + index, seed: UInt8(index)),
                            at: "https://shared.example/\(index % 5)",
                            kind: .precached
                        )
                    }
                }
                try await group.waitForAll()
            }
            // serve: 20 runtime entries of 10...29 bytes; precache: 5 keys, each ending with one of its bodies.
            var sharedBytes: Int64 = 0
            for index in 0..<5 {
                let entry = try #require(try await serve.entry(for: try cacheKey("https://shared.example/\(index)")))
                sharedBytes += entry.bodySize
            }
            let runtimeBytes = Int64(100 + (10..<30).reduce(0, +))
            let expected = expectedTotals(runtime: (21, runtimeBytes), precached: (6, 250 + sharedBytes))
            #expect(try await serve.totals() == expected)
            #expect(try await precache.totals() == expected)

            #expect(try await precache.removeRuntimeEntries() == 21)
            #expect(try await serve.totals() == expectedTotals(runtime: (0, 0), precached: (6, 250 + sharedBytes)))

            // A store opened later reads the same counters, without recounting.
            let reopened = try Store(directory: directory)
            defer { try? reopened.close() }
            #expect(try await reopened.totals() == expectedTotals(runtime: (0, 0), precached: (6, 250 + sharedBytes)))
        }
    }
}
