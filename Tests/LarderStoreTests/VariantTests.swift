import Foundation
import LarderHTTP
import LarderStore
import Testing

struct VariantTests {
    /// Commits `body` under `key` (a plain key or a variant's).
    private func commit(_ store: Store, _ body: [UInt8], key: CacheKey, url: String, responseTime: TimeInterval, kind: EntryKind = .runtime)
        async throws
    {
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: body)
        var head = sampleHead(url: url)
        head.responseTime = Date(timeIntervalSince1970: responseTime)
        _ = try await writer.commit(key: key, head: head, kind: kind, expectedLength: Int64(body.count))
    }

    @Test("variants of a key are found newest first, other keys with a common prefix are not, and removing the key removes them all")
    func variantsAreFoundAndRemovedTogether() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://a.example/page"
            let key = try cacheKey(url)
            try await self.commit(store, [1], key: key, url: url, responseTime: 100)
            try await self.commit(store, [2], key: key.variant("00aa"), url: url, responseTime: 300)
            try await self.commit(store, [3], key: key.variant("00bb"), url: url, responseTime: 200)
            try await store.put([4], at: "https://a.example/page2")
            try await store.put([5], at: "https://a.example/page?x=1")

            let variants = try await store.variants(of: key)
            #expect(variants.map(\.bodySize) == [1, 1, 1])
            #expect(variants.map { $0.key.rawValue } == [key.variant("00aa").rawValue, key.variant("00bb").rawValue, key.rawValue])
            #expect(variants.allSatisfy { $0.url == url })
            #expect(key.variant("00aa").isVariant && !key.isVariant)

            #expect(try await store.removeEntry(for: key))
            #expect(try await store.variants(of: key).isEmpty)
            #expect(try await store.body(at: "https://a.example/page2") == [4])
            #expect(try await store.body(at: "https://a.example/page?x=1") == [5])
            // The removed variants' bodies are gone from disk; the others stay.
            #expect(regularFiles(under: directory + "/bodies").count == 2)
        }
    }

    @Test("a partial entry is never one of the key's variants, and removing the key removes it too")
    func partialEntryApart() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://a.example/clip.bin"
            let key = try cacheKey(url)
            try await self.commit(store, [1, 2], key: key.partial, url: url, responseTime: 1)
            #expect(try await store.variants(of: key).isEmpty, "a lookup of the key never finds its part")
            #expect(try await store.entry(for: key.partial)?.bodySize == 2)
            try await self.commit(store, [3], key: key, url: url, responseTime: 2)
            #expect(try await store.removeEntry(for: key))
            #expect(try await store.entry(for: key.partial) == nil)
            #expect(regularFiles(under: directory + "/bodies").isEmpty)
        }
    }

    @Test("removing while keeping precached entries removes only runtime ones")
    func removalKeepsPrecached() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://a.example/app.js"
            let key = try cacheKey(url)
            try await self.commit(store, [1], key: key, url: url, responseTime: 1, kind: .precached)
            try await self.commit(store, [2], key: key.variant("01"), url: url, responseTime: 2)
            #expect(try await store.removeEntry(for: key, keepingPrecached: true))
            #expect(try await store.variants(of: key).map(\.kind) == [.precached])
            #expect(try await store.removeEntry(for: key, keepingPrecached: true) == false)
        }
    }

    @Test("a 304 refresh replaces headers and times, keeps the body, and refuses when the body changed")
    func refreshHeadKeepsTheBody() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://a.example/data"
            let entry = try await store.put(sampleBody(count: 5000, seed: 3), at: url)
            let headers = [
                HeaderField(name: "Content-Type", value: "application/json"),
                HeaderField(name: "Cache-Control", value: "max-age=60"),
                HeaderField(name: "Set-Cookie", value: "never=stored"),
            ]
            let refreshed = try #require(
                try await store.refreshHead(
                    key: entry.key, bodyHash: entry.bodyHash, headers: headers,
                    requestTime: Date(timeIntervalSince1970: 2_000_000_000), responseTime: Date(timeIntervalSince1970: 2_000_000_001)
                )
            )
            #expect(refreshed.bodyHash == entry.bodyHash)
            #expect(refreshed.header("cache-control") == "max-age=60")
            #expect(refreshed.header("set-cookie") == nil)
            #expect(refreshed.responseTime == Date(timeIntervalSince1970: 2_000_000_001))
            let reread = try #require(try await store.entry(for: entry.key))
            #expect(reread.header("content-type") == "application/json")
            #expect(try await store.body(at: url) == sampleBody(count: 5000, seed: 3))

            let stale = try await store.refreshHead(
                key: entry.key, bodyHash: String(repeating: "0", count: 64), headers: [],
                requestTime: Date(), responseTime: Date()
            )
            #expect(stale == nil)
            #expect(try await store.entry(for: entry.key)?.header("cache-control") == "max-age=60")
        }
    }
}
