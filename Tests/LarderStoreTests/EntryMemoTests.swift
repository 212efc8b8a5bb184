import Foundation
import LarderStore
import Testing

struct EntryMemoTests {
    @Test("a lookup sees this store's own commits and another store's (another process's) at once")
    func memoisedLookupsFollowCommits() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let other = try Store(directory: directory)  // as `larder precache` in another process
            defer { try? other.close() }
            let url = "https://a.example/app.js"
            let key = try cacheKey(url)
            try await store.put([1, 2, 3], at: url)
            #expect(try await store.variants(of: key).map(\.bodySize) == [3])

            // This store's commit clears what it remembered.
            try await store.put([1, 2, 3, 4], at: url)
            #expect(try await store.variants(of: key).map(\.bodySize) == [4])
            #expect(try await store.removeEntry(for: key))
            #expect(try await store.variants(of: key).isEmpty)

            // Another store's commit: a miss is never remembered, so it is found at once...
            try await other.put([9], at: url)
            #expect(try await store.variants(of: key).map(\.bodySize) == [1])
            let remembered = try #require(store.rememberedLookup(of: key))
            #expect(store.holds(remembered.validity))
            // ...and a remembered hit ends the moment the other store commits a change: the
            // shared count in index.changes moved.
            try await other.put([9, 9], at: url)
            #expect(!store.holds(remembered.validity))
            #expect(store.rememberedLookup(of: key) == nil)
            #expect(try await store.variants(of: key).map(\.bodySize) == [2])
            // A change to another key ends it too (the count is for the whole index).
            let again = try #require(store.rememberedLookup(of: key))
            try await other.put([7], at: "https://a.example/other.js")
            #expect(!store.holds(again.validity))
        }
    }

    @Test("last-used times change no lookup: a remembered one still holds after them")
    func lastUsedKeepsLookups() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let other = try Store(directory: directory)
            defer { try? other.close() }
            let url = "https://a.example/app.js"
            let key = try cacheKey(url)
            try await store.put([1, 2, 3], at: url)
            _ = try await store.variants(of: key)
            let remembered = try #require(store.rememberedLookup(of: key))
            try await other.recordUse([key: Date()])
            #expect(store.holds(remembered.validity))
        }
    }

    @Test("a short or empty index.changes is extended; the stores still share their changes")
    func shortCounterFile() async throws {
        try await withTemporaryDirectory { directory in
            #expect(FileManager.default.createFile(atPath: directory + "/index.changes", contents: Data([1, 2])))
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let other = try Store(directory: directory)
            defer { try? other.close() }
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/index.changes")
            #expect((attributes[.size] as? Int) == 8)
            let url = "https://a.example/app.js"
            let key = try cacheKey(url)
            try await store.put([1], at: url)
            _ = try await store.variants(of: key)
            let remembered = try #require(store.rememberedLookup(of: key))
            try await other.put([1, 1], at: url)
            #expect(!store.holds(remembered.validity))
        }
    }

    /// Lookups read the index synchronously on the calling thread. Were they to take one of the
    /// pool's readers, cooperative threads blocked waiting for a reader would wait forever for
    /// asynchronous reads that can only give theirs back on a cooperative thread.
    @Test("many lookups at once beside asynchronous reads all finish", .timeLimit(.minutes(1)))
    func lookupsBesideAsynchronousReads() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put([1, 2, 3], at: "https://a.example/app.js")
            let found = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<400 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            // A miss is never remembered: every one reads the index.
                            return try await store.variants(of: try cacheKey("https://a.example/missing-\(index).js")).count
                        }
                        return try await store.totals().entries
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(found == 200)
        }
    }
}
