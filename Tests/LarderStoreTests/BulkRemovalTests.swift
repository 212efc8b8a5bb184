import Foundation
import Testing

@testable import LarderStore

struct BulkRemovalTests {
    @Test
    func removeRuntimeEntriesKeepsPrecachedEntriesAndTheBodiesTheyShare() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = sampleBody(count: 900, seed: 90)
            let runtimeShared = try await store.put(shared, at: "https://example.com/runtime-shared")
            let runtimeOnly = try await store.put(
                sampleBody(count: 400, seed: 91), at: "https://example.com/runtime-only")
            let pinned = try await store.put(shared, at: "https://example.com/pinned", kind: .precached)
            let pinnedOwn = try await store.put(
                sampleBody(count: 300, seed: 92), at: "https://example.com/pinned-own", kind: .precached)

            #expect(try await store.removeRuntimeEntries() == 2)
            #expect(try await store.entry(for: runtimeShared.key) == nil)
            #expect(try await store.entry(for: runtimeOnly.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: runtimeOnly.bodyPath))
            // The shared body stays for the precached entry.
            #expect(try await store.body(at: "https://example.com/pinned") == shared)
            #expect(try await store.entry(for: pinnedOwn.key)?.kind == .precached)
            #expect(
                regularFiles(under: "\(directory)/bodies").sorted()
                    == [pinned.bodyPath, pinnedOwn.bodyPath].map { String($0.dropFirst(directory.count + 8)) }.sorted()
            )
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (2, 1200)))
            #expect(try await store.listedKeys() == [pinned.key.rawValue, pinnedOwn.key.rawValue])

            #expect(try await store.removeRuntimeEntries() == 0)
        }
    }

    @Test
    func removeRuntimeEntriesWorksThroughMoreThanOneBatch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // Every third row precached; sizes 1...2000.
            let count = 2 * Store.keysPerQuery + 200
            try await GeneratedRows(
                prefix: "https://bulk.example/",
                count: count,
                kindSQL: "CASE WHEN i % 3 = 0 THEN 'precached' ELSE 'runtime' END",
                sizeSQL: "i + 1"
            ).insert(into: store)
            let precached = (0..<count).filter { $0.isMultiple(of: 3) }
            let runtimeCount = count - precached.count
            #expect(try await store.totals().runtimeEntries == runtimeCount)

            #expect(try await store.removeRuntimeEntries() == runtimeCount)
            let precachedBytes = Int64(precached.map { $0 + 1 }.reduce(0, +))
            #expect(
                try await store.totals()
                    == expectedTotals(runtime: (0, 0), precached: (precached.count, precachedBytes)))
            #expect(
                try await store.statistics()
                    == StoreStatistics(
                        entries: precached.count,
                        bodies: precached.count,
                        bodyBytes: precachedBytes,
                        precachedEntries: precached.count,
                        precachedBytes: precachedBytes
                    )
            )
            let page = try await store.listEntries(matching: nil, sort: .url, page: 1, pageSize: Store.maximumPageSize)
            #expect(page.total == precached.count)
            #expect(page.entries.allSatisfy { $0.kind == .precached })
        }
    }

    @Test
    func removeAllEntriesLeavesAnEmptyStore() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let file = try sampleFile("g/app.js")
            try await store.put(sampleBody(count: 500, seed: 93), at: file.url, kind: .precached)
            try await store.put(sampleBody(count: 500, seed: 93), at: "https://example.com/copy")
            try await store.put(sampleBody(count: 100, seed: 94), at: "https://example.com/other")
            _ = try await store.saveGame(sampleGame("g"), files: [file])
            try await store.savePages([
                PrecachePageRecord(
                    key: try cacheKey("https://example.com/"), url: "https://example.com/", state: .failed,
                    lastRun: Date())
            ])
            // More entries than one batch, and a body a crash left without a row.
            try await GeneratedRows(prefix: "https://bulk.example/", count: Store.keysPerQuery + 10).insert(into: store)
            let orphanHash = String(repeating: "ab", count: 32)
            try FileManager.default.createDirectory(atPath: "\(directory)/bodies/ab", withIntermediateDirectories: true)
            #expect(
                FileManager.default.createFile(atPath: "\(directory)/bodies/ab/\(orphanHash)", contents: Data([1, 2])))

            #expect(try await store.removeAllEntries() == Store.keysPerQuery + 13)
            #expect(try await store.totals() == .zero)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))
            #expect(regularFiles(under: "\(directory)/bodies").isEmpty)
            #expect(try await store.games().isEmpty)
            #expect(try await store.gameFiles(slug: "g").isEmpty)
            #expect(try await store.pages().isEmpty)
            #expect(
                try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 10)
                    == EntryPage(entries: [], page: 1, pageSize: 10, total: 0, hasMore: false)
            )
            #expect(try await store.listedKeys(matching: "example").isEmpty)

            #expect(try await store.removeAllEntries() == 0)
            // The store works as before.
            try await store.put(Array("again".utf8), at: "https://example.com/again")
            #expect(try await store.totals() == expectedTotals(runtime: (1, 5), precached: (0, 0)))
            try await expectCountersMatchTheEntries(store)
        }
    }
}
