import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// A body checked against the hash its source promised (`BodyWriter`'s `expectedHash`), and a game
/// switch guarded by its caller's rule (`saveGameVersion`'s `replaces`): what pack imports rely on.
struct ExpectedHashTests {
    @Test
    func aBodyThatDoesNotHashAsPromisedIsNotStoredAndTheEntryStays() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://cdn.example/a.js"
            let old = sampleBody(count: 500, seed: 1)
            try await store.put(old, at: url, kind: .precached)
            let new = sampleBody(count: 600, seed: 2)
            // The store's own hash of the new bytes, from a copy stored under another URL.
            let newHash = try await store.put(new, at: "https://cdn.example/copy.js").bodyHash

            for staged in [false, true] {
                let writer = try store.makeBodyWriter()
                try writer.write(contentsOf: new)
                let promised = String(repeating: "ab", count: 32)
                do {
                    if staged {
                        _ = try await writer.stage(
                            key: try cacheKey(url), head: sampleHead(url: url), expectedLength: 600, expectedHash: promised)
                    } else {
                        _ = try await writer.commit(
                            key: try cacheKey(url), head: sampleHead(url: url), kind: .precached, expectedLength: 600,
                            expectedHash: promised)
                    }
                    Issue.record("stored despite the wrong hash (staged: \(staged))")
                } catch StoreError.hashMismatch(let expected, let actual) {
                    #expect(expected == promised)
                    #expect(actual == newHash)
                }
                #expect(!FileManager.default.fileExists(atPath: writer.temporaryPath))
            }
            #expect(try await store.body(at: url) == old)
            #expect(try await store.stagedStates(for: [try cacheKey(url)]).isEmpty)

            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: new)
            let entry = try await writer.commit(
                key: try cacheKey(url), head: sampleHead(url: url), kind: .precached, expectedLength: 600, expectedHash: newHash)
            #expect(entry.bodyHash == newHash)
            #expect(try await store.body(at: url) == new)
        }
    }

    @Test
    func aSwitchItsRuleRefusesWritesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let file = try sampleFile("a/a.js")
            try await store.put(sampleBody(count: 100, seed: 1), at: file.url, kind: .precached)
            var game = sampleGame("a", lastRun: Date(timeIntervalSince1970: 2_000))
            game.filesListed = 1
            game.filesCached = 1
            _ = try await store.saveGameVersion(game, files: [file], installing: [])

            var older = game
            older.lastRun = Date(timeIntervalSince1970: 1_000)
            older.displayName = "Older"
            let olderRun = older.lastRun
            let outcome = try await store.saveGameVersion(older, files: [], installing: []) { stored in
                stored.map { olderRun > $0.lastRun } ?? true
            }
            #expect(outcome.keptPrevious)
            #expect(outcome.record.lastRun == game.lastRun)
            #expect(try await store.game(slug: "a") == outcome.record)
            #expect(try await store.gameFiles(slug: "a") == [file])
        }
    }
}
