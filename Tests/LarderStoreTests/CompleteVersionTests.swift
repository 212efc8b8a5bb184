import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// A game's complete version answers alone for its files (`Store.isHeldByCompleteVersion`, the
/// switch's removal of runtime copies): what a browser fetched after a deploy never mixes in.
struct CompleteVersionTests {
    /// A game `a` whose complete version is `index.html` (body v1) and `app.js`, both precached.
    private func completeVersion(_ store: Store) async throws -> (page: GameFileRecord, script: GameFileRecord) {
        let page = try sampleFile("a/index.html")
        let script = try sampleFile("a/app.js")
        try await store.put(Array("index v1".utf8), at: page.url, kind: .precached)
        try await store.put(Array("app v1".utf8), at: script.url, kind: .precached)
        var game = sampleGame("a")
        game.filesListed = 2
        game.filesCached = 2
        _ = try await store.saveGame(game, files: [page, script])
        return (page, script)
    }

    /// Every file under the store's `bodies/` folder.
    private func bodyFiles(_ directory: String) -> Set<String> {
        let folder = directory + "/bodies"
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return Set(names.filter { $0.contains("/") })
    }

    @Test
    func aRuntimeAnswerNeitherReplacesNorStandsBesideAFileOfACompleteVersion() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let (page, _) = try await self.completeVersion(store)
            let bodiesBefore = self.bodyFiles(directory)

            // The page of the next deploy, as a browser fetched it: at the key, and as an owner's variant.
            for key in [page.key, page.key.variant("00000000000000a1"), page.key.partial] {
                await #expect(throws: StoreError.heldByCompleteVersion(key: key.rawValue)) {
                    try await store.put(Array("index v2".utf8), at: page.url, key: key)
                }
            }
            #expect(try await store.body(at: page.url) == Array("index v1".utf8))
            #expect(try await store.variants(of: page.key).map(\.kind) == [.precached])
            #expect(try await store.entry(for: page.key.partial) == nil)
            #expect(self.bodyFiles(directory) == bodiesBefore, "the refused bodies are not left in bodies/")

            // Another URL is stored as ever.
            let other = "https://cdn.example/games/a/lazy-chunk.js"
            try await store.put(Array("chunk".utf8), at: other)
            #expect(try await store.body(at: other) == Array("chunk".utf8))
        }
    }

    @Test("a refused runtime answer committed together with others fails alone; the others are stored")
    func aRefusedAnswerInABatchFailsAlone() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let (page, _) = try await self.completeVersion(store)
            let bodiesBefore = self.bodyFiles(directory)
            // Committed at once, so that they share install batches: a batch's rows go in one
            // savepoint, and a row refused in it must not take the others with it.
            let count = 40
            let refused = 17
            let urls = (0..<count).map { $0 == refused ? page.url : "https://cdn.example/games/a/chunk-\($0).js" }
            let outcomes = try await withThrowingTaskGroup(of: (Int, (any Error)?).self) { group in
                for (index, url) in urls.enumerated() {
                    let writer = try store.makeBodyWriter()
                    try writer.write(contentsOf: Array("body \(index)".utf8))
                    nonisolated(unsafe) let handedOver = writer
                    group.addTask {
                        do {
                            _ = try await handedOver.commit(
                                key: try CacheKey(url: url), head: sampleHead(url: url), kind: .runtime, expectedLength: nil)
                            return (index, nil)
                        } catch {
                            return (index, error)
                        }
                    }
                }
                var outcomes: [Int: (any Error)?] = [:]
                for try await (index, error) in group { outcomes[index] = error }
                return outcomes
            }
            #expect(outcomes.filter { $0.value != nil }.map(\.key) == [refused])
            #expect((outcomes[refused] ?? nil) as? StoreError == .heldByCompleteVersion(key: page.key.rawValue))
            for (index, url) in urls.enumerated() where index != refused {
                #expect(try await store.body(at: url) == Array("body \(index)".utf8))
            }
            #expect(try await store.body(at: page.url) == Array("index v1".utf8))
            #expect(self.bodyFiles(directory).count == bodiesBefore.count + count - 1, "the refused body is not left in bodies/")
        }
    }

    @Test
    func aGameWithoutACompleteVersionTakesRuntimeAnswersAsBefore() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            try await store.put(Array("index v1".utf8), at: page.url, kind: .precached)
            var game = sampleGame("a", state: .partial)
            game.filesListed = 2
            game.filesCached = 1
            _ = try await store.saveGame(game, files: [page, try sampleFile("a/app.js", state: .failed)])

            let stored = try await store.put(Array("index v2".utf8), at: page.url)
            #expect(stored.kind == .precached, "a runtime answer still never unpins a precached entry")
            #expect(try await store.body(at: page.url) == Array("index v2".utf8))
        }
    }

    @Test
    func theFileOfAVersionRemovedByHandCanBeStoredAgainAtRunTime() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let (_, script) = try await self.completeVersion(store)
            #expect(try await store.removeEntry(for: script.key))
            try await store.put(Array("app v1".utf8), at: script.url)
            #expect(try await store.body(at: script.url) == Array("app v1".utf8))
        }
    }

    @Test
    func switchingToAVersionRemovesTheRuntimeCopiesBesideItsFiles() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            let elsewhere = try cacheKey("https://cdn.example/games/b/index.html")
            // Stored at run time before any version was complete: an owner's page, a range of an
            // older deploy, and another game's variant.
            try await store.put(Array("index v0".utf8), at: page.url)
            try await store.put(Array("index v0, mine".utf8), at: page.url, key: page.key.variant("00000000000000a1"))
            try await store.put(Array("ind".utf8), at: page.url, key: page.key.partial)
            try await store.put(Array("b, mine".utf8), at: elsewhere.rawValue, key: elsewhere.variant("00000000000000a1"))

            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: Array("index v1".utf8))
            _ = try await writer.stage(key: page.key, head: sampleHead(url: page.url), expectedLength: 8, revision: nil)
            var game = sampleGame("a")
            game.filesListed = 1
            game.filesCached = 1
            let outcome = try await store.saveGameVersion(game, files: [page], installing: [page.key])
            #expect(!outcome.keptPrevious)

            let answers = try await store.variants(of: page.key)
            #expect(answers.map(\.key) == [page.key])
            #expect(try await store.body(at: page.url) == Array("index v1".utf8))
            #expect(try await store.entry(for: page.key.partial) == nil)
            #expect(try await store.variants(of: elsewhere).count == 1, "another URL's variant stays")
            let verification = try await store.verifyEntries(repair: false)
            #expect(verification.problems.isEmpty, "\(verification.problems)")
        }
    }
}
