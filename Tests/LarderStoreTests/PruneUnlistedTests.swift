import Foundation
import LarderStore
import Testing

struct PruneUnlistedTests {
    @Test
    func prunesOnlyPrecachedEntriesNothingListsAndDeletesUnreferencedBodies() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = sampleBody(count: 1500, seed: 50)
            let dropped = try sampleFile("a/shared.js")
            let droppedUnique = try sampleFile("a/unique.js")
            let alsoInB = try sampleFile("a/common.js")
            let page = try sampleFile("a/index.html")
            let runtime = try sampleFile("a/runtime.json")
            let notACandidate = try sampleFile("a/untouched.js")

            let droppedEntry = try await store.put(shared, at: dropped.url, kind: .precached)
            let uniqueEntry = try await store.put(
                sampleBody(count: 700, seed: 51),
                at: droppedUnique.url,
                kind: .precached
            )
            try await store.put(sampleBody(count: 10, seed: 52), at: alsoInB.url, kind: .precached)
            try await store.put(sampleBody(count: 20, seed: 53), at: page.url, kind: .precached)
            try await store.put(shared, at: runtime.url)
            try await store.put(sampleBody(count: 30, seed: 54), at: notACandidate.url, kind: .precached)

            _ = try await store.saveGame(sampleGame("a"), files: [dropped, droppedUnique, alsoInB, page])
            // Game b lists common.js, even as failed; a page record lists index.html.
            var failedInB = alsoInB
            failedInB.state = .failed
            _ = try await store.saveGame(sampleGame("b"), files: [failedInB])
            try await store.savePages([
                PrecachePageRecord(key: page.key, url: page.url, state: .failed, lastRun: Date())
            ])

            let candidates = try await store.saveGame(sampleGame("a"), files: [])
            #expect(candidates == [dropped.key, droppedUnique.key, alsoInB.key, page.key])

            let missing = try cacheKey("https://cdn.example/games/a/never-stored.js")
            let removed = try await store.pruneUnlisted(candidates.union([runtime.key, missing]))
            #expect(removed == [dropped.key, droppedUnique.key])

            #expect(try await store.entry(for: dropped.key) == nil)
            #expect(try await store.entry(for: droppedUnique.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: uniqueEntry.bodyPath))
            // The runtime entry still references the shared body.
            #expect(FileManager.default.fileExists(atPath: droppedEntry.bodyPath))
            #expect(try await store.body(at: runtime.url) == shared)
            #expect(try await store.entry(for: runtime.key)?.kind == .runtime)
            #expect(try await store.entry(for: alsoInB.key)?.kind == .precached)
            #expect(try await store.entry(for: page.key)?.kind == .precached)
            #expect(try await store.entry(for: notACandidate.key)?.kind == .precached)

            // Once game b is gone, common.js is listed by nothing.
            try await store.removeGame(slug: "b")
            #expect(try await store.pruneUnlisted([alsoInB.key, page.key]) == [alsoInB.key])
            #expect(try await store.pruneUnlisted([]) == [])
            #expect(try await store.statistics().entries == 3)
        }
    }

    @Test
    func prunesMoreCandidatesThanOneBatch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let stale = try sampleFile("g/stale.js")
            let listed = try sampleFile("g/listed.js")
            let staleEntry = try await store.put(sampleBody(count: 64, seed: 55), at: stale.url, kind: .precached)
            try await store.put(sampleBody(count: 64, seed: 56), at: listed.url, kind: .precached)
            _ = try await store.saveGame(sampleGame("g"), files: [listed])

            var candidates = Set(try (0..<1100).map { try cacheKey("https://cdn.example/games/g/gone/\($0).js") })
            candidates.formUnion([stale.key, listed.key])
            #expect(try await store.pruneUnlisted(candidates) == [stale.key])
            #expect(!FileManager.default.fileExists(atPath: staleEntry.bodyPath))
            #expect(try await store.entry(for: listed.key) != nil)
        }
    }
}
