import Foundation
import LarderStore
import Testing

struct EntryKindAndRevisionTests {
    @Test
    func runtimeCommitOverAPrecachedEntryKeepsItPrecachedWithItsRevision() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://cdn.example/games/flipart/index.html"
            let precached = try await store.put(Array("v1".utf8), at: url, kind: .precached, revision: "r1")
            #expect(precached.kind == .precached)
            #expect(precached.revision == "r1")

            // A browser fetches the page again: the body is replaced, the pin and revision stay.
            let refetched = try await store.put(Array("v1 again".utf8), at: url, kind: .runtime)
            #expect(refetched.kind == .precached)
            #expect(refetched.revision == "r1")
            let stored = try #require(try await store.entry(for: try cacheKey(url)))
            #expect(stored.kind == .precached)
            #expect(stored.revision == "r1")
            #expect(try await store.body(at: url) == Array("v1 again".utf8))

            // The precache runner fetches a new revision: it replaces the old one.
            let updated = try await store.put(Array("v2".utf8), at: url, kind: .precached, revision: "r2")
            #expect(updated.kind == .precached)
            #expect(updated.revision == "r2")
            #expect(try await store.entry(for: try cacheKey(url))?.revision == "r2")

            // A precached commit without a revision: the old revision no longer describes the body.
            let plain = try await store.put(Array("v3".utf8), at: url, kind: .precached)
            #expect(plain.revision == nil)
            #expect(try await store.entry(for: try cacheKey(url))?.revision == nil)
            #expect(try await store.statistics().entries == 1)
        }
    }

    @Test
    func runtimeEntriesStayRuntimeAndKeepARevisionUnlessGivenOne() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://example.com/app.js"
            let first = try await store.put(Array("a".utf8), at: url, revision: "abc")
            #expect(first.kind == .runtime)
            #expect(first.revision == "abc")

            let second = try await store.put(Array("b".utf8), at: url)
            #expect(second.kind == .runtime)
            #expect(second.revision == "abc")

            let third = try await store.put(Array("c".utf8), at: url, revision: "def")
            #expect(third.revision == "def")

            // A precached commit pins a runtime entry.
            let pinned = try await store.put(Array("c".utf8), at: url, kind: .precached, revision: "def")
            #expect(pinned.kind == .precached)
            let stored = try #require(try await store.entry(for: try cacheKey(url)))
            #expect(stored.kind == .precached)
            #expect(stored.revision == "def")
        }
    }

    @Test
    func concurrentRuntimeCommitsFromAnotherStoreNeverUnpin() async throws {
        try await withTemporaryDirectory { directory in
            // larder precache and larder serve write the same keys at the same time. In either order the
            // entry ends precached with the precache revision.
            let precache = try Store(directory: directory)
            let serve = try Store(directory: directory)
            defer {
                try? precache.close()
                try? serve.close()
            }
            let count = 30
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    let url = "https://cdn.example/games/g/\(index).js"
                    group.addTask {
                        try await precache.put(
                            Array("pre \(index)".utf8),
                            at: url,
                            kind: .precached,
                            revision: "r\(index)"
                        )
                    }
                    group.addTask {
                        try await serve.put(Array("run \(index)".utf8), at: url)
                    }
                }
                try await group.waitForAll()
            }
            let keys = try (0..<count).map { try cacheKey("https://cdn.example/games/g/\($0).js") }
            let states = try await serve.storedStates(for: keys)
            #expect(states.count == count)
            for (index, key) in keys.enumerated() {
                #expect(states[key]?.kind == .precached)
                #expect(states[key]?.revision == "r\(index)")
            }
            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
        }
    }

    @Test
    func statisticsCountPrecachedEntriesAndTheirBytes() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = sampleBody(count: 1000, seed: 30)
            try await store.put(shared, at: "https://example.com/a", kind: .precached)
            try await store.put(shared, at: "https://example.com/b", kind: .precached)
            try await store.put(sampleBody(count: 300, seed: 31), at: "https://example.com/c", kind: .precached)
            try await store.put(sampleBody(count: 50, seed: 32), at: "https://example.com/d")
            #expect(
                try await store.statistics()
                    == StoreStatistics(
                        entries: 4,
                        bodies: 3,
                        bodyBytes: 1350,
                        precachedEntries: 3,
                        precachedBytes: 2300
                    )
            )
        }
    }
}
