import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

struct SchemaMigrationTests {
    @Test
    func anIndexLeftByTheFirstSchemaMigratesWithItsEntriesIntact() async throws {
        try await withTemporaryDirectory { directory in
            // The index as a Larder with only migration v1 left it, with one runtime and one precached entry.
            let abcHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            let old = try Store(directory: directory, migratingUpTo: "v1")
            await #expect(throws: (any Error).self) {
                try await old.games()
            }
            try await old.executeForTesting(
                sql: """
                    INSERT INTO entry (key, url, status, headers, vary, kind, body_hash, body_size, request_time,
                        response_time, stored_at, last_used, content_type)
                    VALUES
                        ('https://example.com/abc', 'https://example.com/abc?utm_source=x', 200,
                            '[["Content-Type","text/plain"]]', '[]', 'runtime', '\(abcHash)', 3,
                            1700000000.25, 1700000000.5, 1700000001, 1700000001, 'text/plain'),
                        ('https://example.com/empty', 'https://example.com/empty', 204, '[]',
                            '[["Accept-Language","fr"]]', 'precached', '\(emptyHash)', 0,
                            1700000002, 1700000003, 1700000004, 1700000004, NULL);
                    """
            )
            try old.close()
            try FileManager.default.createDirectory(atPath: "\(directory)/bodies/ba", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(directory)/bodies/e3", withIntermediateDirectories: true)
            #expect(
                FileManager.default.createFile(atPath: "\(directory)/bodies/ba/\(abcHash)", contents: Data("abc".utf8))
            )
            #expect(FileManager.default.createFile(atPath: "\(directory)/bodies/e3/\(emptyHash)", contents: Data()))

            let store = try Store(directory: directory)
            defer { try? store.close() }
            let abc = try #require(try await store.entry(for: try cacheKey("https://example.com/abc")))
            #expect(abc.url == "https://example.com/abc?utm_source=x")
            #expect(abc.status == 200)
            #expect(abc.headers == [HeaderField(name: "Content-Type", value: "text/plain")])
            #expect(abc.kind == .runtime)
            #expect(abc.revision == nil)
            #expect(abc.bodyHash == abcHash)
            #expect(abc.requestTime == Date(timeIntervalSince1970: 1_700_000_000.25))
            #expect(abc.storedAt == Date(timeIntervalSince1970: 1_700_000_001))
            #expect(try await store.body(at: "https://example.com/abc") == Array("abc".utf8))

            let empty = try #require(try await store.entry(for: try cacheKey("https://example.com/empty")))
            #expect(empty.status == 204)
            #expect(empty.kind == .precached)
            #expect(empty.varyRequestHeaders == [HeaderField(name: "Accept-Language", value: "fr")])
            #expect(empty.revision == nil)

            #expect(
                try await store.statistics()
                    == StoreStatistics(entries: 2, bodies: 2, bodyBytes: 3, precachedEntries: 1, precachedBytes: 0)
            )
            #expect(
                try await store.storedStates(for: [abc.key, empty.key]) == [
                    abc.key: StoredKeyState(kind: .runtime, revision: nil, bodySize: 3),
                    empty.key: StoredKeyState(kind: .precached, revision: nil, bodySize: 0),
                ]
            )

            // The new tables and column work on the migrated index.
            #expect(try await store.games().isEmpty)
            let file = GameFileRecord(key: empty.key, url: empty.url, state: .cached)
            _ = try await store.saveGame(sampleGame("g"), files: [file])
            #expect(try await store.gameFiles(slug: "g") == [file])
            #expect(try await store.pin([abc.key], revisions: [abc.key: "r1"]) == 1)
            #expect(try await store.entry(for: abc.key)?.revision == "r1")

            // Opening again finds nothing left to migrate.
            let reopened = try Store(directory: directory)
            defer { try? reopened.close() }
            #expect(try await reopened.game(slug: "g") != nil)
        }
    }

    @Test
    func anIndexLeftBySchemaV2GetsCountersAndASearchIndexOfItsEntries() async throws {
        try await withTemporaryDirectory { directory in
            let old = try Store(directory: directory, migratingUpTo: "v2")
            // Two entries share a body; kinds and sizes differ.
            try await old.executeForTesting(
                sql: """
                    INSERT INTO entry (key, url, status, headers, vary, kind, body_hash, body_size, request_time,
                        response_time, stored_at, last_used, content_type, revision)
                    VALUES
                        ('https://cdn.example/games/flipart/app.js', 'https://CDN.example/games/FlipArt/app.js', 200,
                            '[]', '[]', 'precached', '\(String(repeating: "a", count: 64))', 300,
                            1700000000, 1700000000, 1700000003, 1700000003, 'text/javascript', 'r1'),
                        ('https://cdn.example/games/flipart/copy.js', 'https://cdn.example/games/flipart/copy.js', 200,
                            '[]', '[]', 'runtime', '\(String(repeating: "a", count: 64))', 300,
                            1700000000, 1700000000, 1700000001, 1700000005, NULL, NULL),
                        ('https://other.example/x.png', 'https://other.example/x.png', 404,
                            '[]', '[]', 'runtime', '\(String(repeating: "b", count: 64))', 20,
                            1700000000, 1700000000, 1700000002, 1700000002, 'image/png', NULL);
                    """
            )
            try old.close()

            let store = try Store(directory: directory)
            defer { try? store.close() }
            #expect(try await store.totals() == expectedTotals(runtime: (2, 320), precached: (1, 300)))
            try await expectCountersMatchTheEntries(store)
            #expect(
                try await store.statistics()
                    == StoreStatistics(entries: 3, bodies: 2, bodyBytes: 320, precachedEntries: 1, precachedBytes: 300)
            )
            // Rows written before v3 are searchable and sorted from the new indexes.
            #expect(
                try await store.listedKeys(matching: "flipart", sort: .recent) == [
                    "https://cdn.example/games/flipart/app.js", "https://cdn.example/games/flipart/copy.js",
                ]
            )
            let page = try await store.listEntries(matching: nil, sort: .size, page: 1, pageSize: 2)
            #expect(page.entries.map(\.bodySize) == [300, 300])
            #expect(
                page.entries.map(\.key.rawValue) == [
                    "https://cdn.example/games/flipart/copy.js", "https://cdn.example/games/flipart/app.js",
                ])
            #expect(page.hasMore)
            let png = try #require(
                try await store.listEntries(matching: ".png", sort: .url, page: 1, pageSize: 5).entries.first)
            #expect(png.status == 404)
            #expect(png.contentType == "image/png")
            #expect(png.lastUsed == Date(timeIntervalSince1970: 1_700_000_002))

            // The triggers keep the migrated counters and index up to date.
            #expect(try await store.removeEntries([try cacheKey("https://cdn.example/games/flipart/app.js")]) == 1)
            #expect(try await store.totals() == expectedTotals(runtime: (2, 320), precached: (0, 0)))
            #expect(try await store.statistics().bodies == 2)
            #expect(try await store.listedKeys(matching: "FLIPART") == ["https://cdn.example/games/flipart/copy.js"])
            #expect(try await store.removeRuntimeEntries() == 2)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))
        }
    }
}
