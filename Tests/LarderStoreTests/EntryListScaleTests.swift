import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

struct EntryListScaleTests {
    /// Rows `https://scale.example/assets/file-<i>`, every fourth precached, sizes a permutation of 1...count.
    static func scaleRows(count: Int) -> GeneratedRows {
        GeneratedRows(
            prefix: "https://scale.example/assets/file-",
            count: count,
            kindSQL: "CASE WHEN i % 4 = 0 THEN 'precached' ELSE 'runtime' END",
            sizeSQL: "(i * 7919) % \(count) + 1"
        )
    }

    @Test
    func twentyThousandEntriesAreCountedListedAndSearched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let count = 20_000
            try await Self.scaleRows(count: count).insert(into: store)
            let key = { (index: Int) in "https://scale.example/assets/file-\(index)" }
            let size = { (index: Int) in Int64((index * 7919) % count + 1) }

            let precached = (0..<count).filter { $0.isMultiple(of: 4) }
            let precachedBytes = precached.map(size).reduce(0, +)
            let allBytes = (0..<count).map(size).reduce(0, +)
            #expect(
                try await store.totals()
                    == expectedTotals(
                        runtime: (count - precached.count, allBytes - precachedBytes),
                        precached: (precached.count, precachedBytes)
                    )
            )
            #expect(
                try await store.statistics()
                    == StoreStatistics(
                        entries: count,
                        bodies: count,
                        bodyBytes: allBytes,
                        precachedEntries: precached.count,
                        precachedBytes: precachedBytes
                    )
            )

            let recent = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 50)
            #expect(recent.entries.map(\.key.rawValue) == (0..<50).map { key(count - 1 - $0) })
            #expect(recent.total == count)
            #expect(recent.hasMore)
            #expect(
                recent.entries.map(\.storedAt)
                    == (0..<50).map { Date(timeIntervalSince1970: GeneratedRows.storedAt(count - 1 - $0)) })

            let last = try await store.listEntries(matching: nil, sort: .recent, page: count / 50, pageSize: 50)
            #expect(last.entries.map(\.key.rawValue) == (0..<50).map { key(49 - $0) })
            #expect(!last.hasMore)
            let past = try await store.listEntries(matching: nil, sort: .recent, page: count / 50 + 1, pageSize: 50)
            #expect(past.entries.isEmpty)
            #expect(!past.hasMore)

            let bySize = (0..<count).sorted { size($0) > size($1) }
            let sizePage = try await store.listEntries(matching: nil, sort: .size, page: 3, pageSize: 100)
            #expect(sizePage.entries.map(\.key.rawValue) == bySize[200..<300].map(key))
            #expect(sizePage.entries.first?.bodySize == Int64(count - 200))

            let byURL = (0..<count).map(key).sorted()
            let urlPage = try await store.listEntries(matching: nil, sort: .url, page: 7, pageSize: 500)
            #expect(urlPage.entries.map(\.key.rawValue) == Array(byURL[3000..<3500]))

            // A narrow search: file-1234 and file-12340...12349, counted exactly.
            let narrow = try await store.listEntries(matching: "FILE-1234", sort: .url, page: 1, pageSize: 50)
            #expect(narrow.isTotalExact)
            #expect(narrow.total == 11)
            #expect(narrow.entries.map(\.key.rawValue) == ([1234] + Array(12340...12349)).map(key).sorted())

            // A broad search (11,111 matches): the pages hold the newest matches, sorted.
            let newest = (0..<count).reversed().filter { String($0).hasPrefix("1") }.prefix(Store.searchResultLimit)
            let broad = try await store.listEntries(matching: "file-1", sort: .size, page: 2, pageSize: 50)
            #expect(!broad.isTotalExact)
            #expect(broad.total == Store.searchResultLimit)
            #expect(broad.hasMore)
            #expect(broad.entries.map(\.key.rawValue) == newest.sorted { size($0) > size($1) }[50..<100].map(key))
        }
    }

    /// Not a timed assertion: prints median times at 100,000 entries. Run with `LARDER_PERF=1`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LARDER_PERF"] == "1"))
    func measureAtOneHundredThousandEntries() async throws {
        try await withTemporaryDirectory { directory in
            let count = 100_000
            let clock = ContinuousClock()

            // Upgrading an index of that size from v2: the one-off cost of migration v3.
            let old = try Store(directory: directory, migratingUpTo: "v2")
            try await Self.scaleRows(count: count).insert(into: old)
            try old.close()
            let migration = try clock.measure {
                let store = try Store(directory: directory)
                try store.close()
            }
            print("larder-perf migration v3 of \(count) entries: \(migration)")

            let store = try Store(directory: directory)
            defer { try? store.close() }
            let reopen = try clock.measure {
                let again = try Store(directory: directory)
                try again.close()
            }
            print("larder-perf open (nothing to migrate): \(reopen)")

            func median(_ label: String, _ body: () async throws -> Void) async throws {
                var samples: [Duration] = []
                for _ in 0..<31 {
                    samples.append(try await clock.measure { try await body() })
                }
                samples.sort()
                print("larder-perf \(label): median \(samples[samples.count / 2]), max \(samples.last ?? .zero)")
            }

            try await median("page view: totals + listEntries(nil, .recent, page 1, 50)") {
                let totals = try await store.totals()
                let page = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 50)
                #expect(totals.entries == count)
                #expect(page.entries.count == 50)
            }
            try await median("totals") {
                _ = try await store.totals()
            }
            try await median("statistics") {
                _ = try await store.statistics()
            }
            for sort in EntrySort.allCases {
                try await median("listEntries(nil, .\(sort), page 1, 50)") {
                    _ = try await store.listEntries(matching: nil, sort: sort, page: 1, pageSize: 50)
                }
                try await median("listEntries(nil, .\(sort), page 1000, 50) (offset 49,950)") {
                    _ = try await store.listEntries(matching: nil, sort: sort, page: 1000, pageSize: 50)
                }
            }
            let searches = [
                ("file-12345 (11 matches)", "file-12345"),
                ("file-123 (1,111 matches)", "file-123"),
                ("file-99 (1,111 matches, at the end of URL order)", "file-99"),
                ("file-1 (11,111 matches)", "file-1"),
                ("scale (every entry)", "scale"),
                ("zzz (no match)", "zzz"),
            ]
            for (label, query) in searches {
                for sort in EntrySort.allCases {
                    try await median("search \(label), .\(sort), page 1, 50") {
                        _ = try await store.listEntries(matching: query, sort: sort, page: 1, pageSize: 50)
                    }
                }
            }
            try await median("search file-1 (11,111 matches), .size, last page (40, 50)") {
                _ = try await store.listEntries(matching: "file-1", sort: .size, page: 40, pageSize: 50)
            }
            let uses = Dictionary(
                uniqueKeysWithValues: (0..<1000).map {
                    (CacheKey(storedRawValue: "https://scale.example/assets/file-\($0 * 97)"), Date())
                }
            )
            try await median("recordUse of 1,000 keys") {
                try await store.recordUse(uses)
            }
        }
    }
}
