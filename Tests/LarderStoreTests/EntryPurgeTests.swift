import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

struct EntryPurgeTests {
    @Test
    func purgeEntryRemovesTheEntryAndRecountsTheGamesThatListedIt() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let purged = try sampleFile("a/purged.js")
            let kept = try sampleFile("a/kept.js")
            let entry = try await store.put(sampleBody(count: 345, seed: 11), at: purged.url, kind: .precached)
            try await store.put(sampleBody(count: 10, seed: 12), at: kept.url, kind: .precached)
            _ = try await store.saveGame(sampleGame("a"), files: [purged, kept])
            _ = try await store.saveGame(sampleGame("b"), files: [kept])

            let result = try await store.purgeEntry(purged.key)

            #expect(result == EntryPurgeResult(removed: true, gamesAffected: ["a"]))
            #expect(try await store.entry(for: purged.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: entry.bodyPath))
            let game = try #require(try await store.game(slug: "a"))
            #expect(game.state == .partial)
            #expect(game.filesCached == 1)
            #expect(game.bytes == 12_345 - 345)
            #expect(try await store.gameFiles(slug: "a").map(\.state) == [.failed, .cached])
            #expect(try await store.gameFiles(slug: "a").first?.reason == Store.purgedReason)
            #expect(try await store.game(slug: "b") == sampleGame("b"))
        }
    }

    @Test
    func aPurgeThatFailsPartWayChangesNothingAndKeepsTheBody() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let file = try sampleFile("a/file.js")
            let entry = try await store.put(sampleBody(count: 100, seed: 13), at: file.url, kind: .precached)
            _ = try await store.saveGame(sampleGame("a"), files: [file])
            // The game record is rewritten after the entry is removed: make that last step fail.
            try await store.executeForTesting(
                sql: "CREATE TRIGGER refuse_game_update BEFORE UPDATE ON game BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )

            await #expect(throws: (any Error).self) { try await store.purgeEntry(file.key) }

            #expect(try await store.entry(for: file.key) != nil)
            #expect(FileManager.default.fileExists(atPath: entry.bodyPath))
            #expect(try await store.game(slug: "a") == sampleGame("a"))
            #expect(try await store.gameFiles(slug: "a") == [file])
        }
    }
}
