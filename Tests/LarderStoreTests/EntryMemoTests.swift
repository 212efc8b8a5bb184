import Foundation
import LarderStore
import Testing

struct EntryMemoTests {
    @Test("a lookup after this store's own commit sees it at once; another store's commit is seen within a second")
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
            // ...and a remembered hit is replaced within the memo's lifetime.
            try await other.put([9, 9], at: url)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await store.variants(of: key).map(\.bodySize) == [2])
        }
    }
}
