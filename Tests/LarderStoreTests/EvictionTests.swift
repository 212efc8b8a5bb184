import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

@Suite("Store: least-recently-used eviction of runtime entries")
struct EvictionTests {
    @Test("runtime entries go least recently used first until the store fits; precached entries stay")
    func evictsInLastUseOrder() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let base = Date().addingTimeInterval(1000)  // later than the stores, so the uses count
            for index in 0..<5 {
                try await store.put(sampleBody(count: 1000, seed: UInt8(index)), at: "https://example.com/\(index)")
            }
            try await store.put(sampleBody(count: 1500, seed: 50), at: "https://example.com/pinned", kind: .precached)
            // Last use, oldest first: 3, 0, 4, 1, 2 (not the insertion order).
            var uses: [CacheKey: Date] = [:]
            for (rank, index) in [3, 0, 4, 1, 2].enumerated() {
                uses[try CacheKey(url: "https://example.com/\(index)")] = base.addingTimeInterval(Double(rank))
            }
            try await store.recordUse(uses)
            let filesBefore = regularFiles(under: directory + "/bodies").count

            // 6500 bytes in all; a budget of 4000 leaves 1500 pinned + 2 runtime entries.
            let result = try await store.evictRuntime(toFitWithin: 4000)
            #expect(result.removed == 3)
            #expect(result.freedBytes == 3000)
            for index in [3, 0, 4] {
                #expect(
                    try await store.entry(for: try CacheKey(url: "https://example.com/\(index)")) == nil,
                    "entry \(index) was used least recently")
            }
            for index in [1, 2] {
                #expect(try await store.entry(for: try CacheKey(url: "https://example.com/\(index)")) != nil)
            }
            #expect(try await store.entry(for: try CacheKey(url: "https://example.com/pinned")) != nil)
            #expect(regularFiles(under: directory + "/bodies").count == filesBefore - 3, "evicted bodies are deleted")
            #expect(try await store.totals().bytes == 3500)

            // Within budget: nothing more goes.
            #expect(try await store.evictRuntime(toFitWithin: 4000).removed == 0)
            // Precached bytes alone over the budget: every runtime entry goes, the pinned one stays.
            let all = try await store.evictRuntime(toFitWithin: 100)
            #expect(all.removed == 2)
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (1, 1500)))
        }
    }

    @Test("eviction in batches: more entries than one batch")
    func manyEntries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let count = Store.keysPerQuery + 100
            let values = (0..<count).map {
                "('k\($0)', 'https://example.com/\($0)', 200, '[]', '[]', 'runtime', '\(String(repeating: "a", count: 64))', 10, 0, 0, 0, \($0))"
            }
            try await store.executeForTesting(
                sql:
                    "INSERT INTO entry (key, url, status, headers, vary, kind, body_hash, body_size, request_time, response_time, stored_at, last_used) VALUES "
                    + values.joined(separator: ", ")
            )
            let result = try await store.evictRuntime(toFitWithin: 50)
            #expect(result.removed == count - 5)
            #expect(try await store.totals().runtimeEntries == 5)
        }
    }
}
