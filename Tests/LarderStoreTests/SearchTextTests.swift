import Foundation
import GRDB
import LarderHTTP
import Testing

@testable import LarderStore

/// The search text kept off the writes that add entries (migration v17): a new entry's URL waits
/// in `entry_search_pending` and is indexed by the next search.
struct SearchTextTests {
    /// How many entries wait for their text to be indexed, and how many the trigram index finds for
    /// `phrase`, read through a connection of its own.
    private static func searchRows(_ directory: String, _ phrase: String) throws -> String {
        try DatabaseQueue(path: directory + "/index.sqlite").read { db in
            let waiting = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry_search_pending") ?? -1
            let indexed =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry_search WHERE entry_search MATCH ?", arguments: ["\"\(phrase)\""])
                ?? -1
            return "\(waiting) waiting, \(indexed) indexed"
        }
    }

    @Test("adding entries writes no search text; the next search indexes them and finds them")
    func addingLeavesTheTextForTheSearch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            for index in 0..<3 {
                try await store.put(sampleBody(count: 10, seed: UInt8(index)), at: "https://cdn.example/games/wait/\(index).js")
            }

            #expect(try Self.searchRows(directory, "games/wait") == "3 waiting, 0 indexed")

            let found = try await store.listEntries(matching: "games/wait", sort: .url, page: 1, pageSize: 10)
            #expect(found.entries.map(\.url) == (0..<3).map { "https://cdn.example/games/wait/\($0).js" })
            #expect(try Self.searchRows(directory, "games/wait") == "0 waiting, 3 indexed")
            #expect(try await store.recountForTesting().searchIndexIsSound)
        }
    }

    @Test("entries removed or changed before or after their text was indexed leave a sound index that finds what is stored")
    func removalsAndChangesKeepTheIndexSound() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let indexed = "https://cdn.example/games/sound/indexed.js"
            let waiting = "https://cdn.example/games/sound/waiting.js"
            let kept = "https://cdn.example/games/sound/kept.js"
            try await store.put(sampleBody(count: 10, seed: 1), at: indexed)
            try await store.put(sampleBody(count: 10, seed: 2), at: kept)
            _ = try await store.listEntries(matching: "games/sound", sort: .url, page: 1, pageSize: 10)
            try await store.put(sampleBody(count: 10, seed: 3), at: waiting)

            #expect(try await store.removeEntry(for: try cacheKey(indexed)))
            #expect(try await store.removeEntry(for: try cacheKey(waiting)))
            try await store.put(sampleBody(count: 11, seed: 4), at: kept)

            let found = try await store.listEntries(matching: "games/sound", sort: .url, page: 1, pageSize: 10)
            #expect(found.entries.map(\.url) == [kept])
            #expect(try await store.recountForTesting().searchIndexIsSound)
        }
    }
}
