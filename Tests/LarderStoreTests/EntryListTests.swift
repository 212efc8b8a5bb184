import Foundation
import LarderHTTP
import LarderStore
import Testing

extension Store {
    /// The keys (raw values) of one page of the entry list.
    func listedKeys(matching query: String? = nil, sort: EntrySort = .url, page: Int = 1, pageSize: Int = 100)
        async throws -> [String]
    {
        try await self.listEntries(matching: query, sort: sort, page: page, pageSize: pageSize).entries.map(
            \.key.rawValue)
    }

    /// Stores a small body under `keyURL`, with `displayURL` as the URL the entry shows (and is searched by).
    @discardableResult
    func put(displayURL: String, at keyURL: String, size: Int = 10, kind: EntryKind = .runtime) async throws
        -> CachedEntry
    {
        try await self.put(
            sampleBody(count: size, seed: UInt8(truncatingIfNeeded: size)),
            at: keyURL,
            kind: kind,
            head: sampleHead(url: displayURL)
        )
    }
}

struct EntryListTests {
    @Test
    func listsEveryEntryInEachSortOrderWithItsFields() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // Stored in this order, with these sizes.
            let stored: [(url: String, size: Int, kind: EntryKind)] = [
                ("https://b.example/two.js", 300, .runtime),
                ("https://a.example/one.png", 100, .precached),
                ("https://c.example/three.css", 500, .runtime),
                ("https://a.example/four.json", 200, .precached),
                ("https://b.example/five.wasm", 400, .runtime),
            ]
            var entries: [CachedEntry] = []
            for (index, item) in stored.enumerated() {
                entries.append(
                    try await store.put(
                        sampleBody(count: item.size, seed: UInt8(80 + index)),
                        at: item.url,
                        kind: item.kind,
                        head: sampleHead(
                            url: item.url + "?utm_source=feed",
                            headers: [HeaderField(name: "Content-Type", value: "type/\(index)")]
                        )
                    )
                )
            }

            let recent = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 10)
            #expect(recent.entries.map(\.url) == stored.reversed().map { $0.url + "?utm_source=feed" })
            #expect(recent.total == 5)
            #expect(recent.hasMore == false)
            #expect(recent.isTotalExact)
            #expect(!recent.isQueryTooShort)
            #expect(recent.page == 1)
            #expect(recent.pageSize == 10)

            #expect(
                try await store.listedKeys(sort: .size) == [
                    "https://c.example/three.css", "https://b.example/five.wasm", "https://b.example/two.js",
                    "https://a.example/four.json", "https://a.example/one.png",
                ]
            )
            #expect(
                try await store.listedKeys(sort: .url) == [
                    "https://a.example/four.json", "https://a.example/one.png", "https://b.example/five.wasm",
                    "https://b.example/two.js", "https://c.example/three.css",
                ]
            )

            // Each summary carries the entry's fields; last use starts at the store time.
            let summary = try #require(recent.entries.last)
            let entry = entries[0]
            #expect(
                summary
                    == EntrySummary(
                        key: entry.key,
                        url: "https://b.example/two.js?utm_source=feed",
                        status: 200,
                        contentType: "type/0",
                        bodySize: 300,
                        kind: .runtime,
                        storedAt: entry.storedAt,
                        lastUsed: entry.storedAt
                    )
            )
            #expect(recent.entries.map(\.kind) == stored.reversed().map(\.kind))

            // The page encodes to JSON and back (the /dev/offline.json twin); the key is one string.
            let json = try JSONEncoder().encode(recent)
            #expect(try JSONDecoder().decode(EntryPage.self, from: json) == recent)
            let keyJSON = try JSONEncoder().encode(entry.key)
            #expect(try JSONDecoder().decode(String.self, from: keyJSON) == "https://b.example/two.js")
            #expect(try JSONDecoder().decode(CacheKey.self, from: keyJSON) == entry.key)
        }
    }

    @Test
    func paginationBoundaries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let urls = (0..<10).map { "https://example.com/\($0)" }
            for url in urls {
                try await store.put(Array(url.utf8), at: url)
            }
            // Newest first.
            let recent = urls.reversed().map { $0 }

            let first = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 5)
            #expect(first.entries.map(\.key.rawValue) == Array(recent[0..<5]))
            #expect(first.hasMore)
            #expect(first.total == 10)

            // The total is an exact multiple of the page size: the last page is full and has no more.
            let second = try await store.listEntries(matching: nil, sort: .recent, page: 2, pageSize: 5)
            #expect(second.entries.map(\.key.rawValue) == Array(recent[5..<10]))
            #expect(!second.hasMore)

            // A last partial page.
            let third = try await store.listEntries(matching: nil, sort: .recent, page: 3, pageSize: 4)
            #expect(third.entries.map(\.key.rawValue) == Array(recent[8..<10]))
            #expect(!third.hasMore)
            #expect(third.total == 10)

            // Past the end: empty, no more, the total still given.
            for page in [4, 1000, Int.max] {
                let past = try await store.listEntries(matching: nil, sort: .recent, page: page, pageSize: 4)
                #expect(past.entries.isEmpty)
                #expect(!past.hasMore)
                #expect(past.total == 10)
                #expect(past.page == page)
            }

            // Out-of-range arguments are clamped, and the page says what was applied.
            let clamped = try await store.listEntries(matching: nil, sort: .recent, page: 0, pageSize: 0)
            #expect(clamped.page == 1)
            #expect(clamped.pageSize == 1)
            #expect(clamped.entries.map(\.key.rawValue) == [recent[0]])
            #expect(clamped.hasMore)
            let huge = try await store.listEntries(matching: nil, sort: .url, page: -3, pageSize: Int.max)
            #expect(huge.pageSize == Store.maximumPageSize)
            #expect(huge.entries.count == 10)
            #expect(!huge.hasMore)

            // Every page of every order, put together, is every entry once.
            for sort in EntrySort.allCases {
                var seen: [String] = []
                var page = 1
                while true {
                    let result = try await store.listEntries(matching: nil, sort: sort, page: page, pageSize: 3)
                    seen += result.entries.map(\.key.rawValue)
                    guard result.hasMore else {
                        break
                    }
                    page += 1
                }
                #expect(page == 4)
                #expect(seen.sorted() == urls.sorted())
            }

            let empty = try Store(directory: "\(directory)/empty")
            defer { try? empty.close() }
            let nothing = try await empty.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 5)
            #expect(nothing == EntryPage(entries: [], page: 1, pageSize: 5, total: 0, hasMore: false))
        }
    }

    @Test
    func searchMatchesSubstringsOfHostAndPathWithoutASCIICase() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(
                displayURL: "https://CDN.Example/Games/FlipArt/index.html",
                at: "https://cdn.example/games/flipart/index.html", size: 30)
            try await store.put(
                displayURL: "https://cdn.example/games/flipart/app.js", at: "https://cdn.example/games/flipart/app.js",
                size: 20)
            try await store.put(
                displayURL: "https://assets.other/flipart-logo.png", at: "https://assets.other/flipart-logo.png",
                size: 10)
            try await store.put(
                displayURL: "https://cdn.example/games/tetra/index.html",
                at: "https://cdn.example/games/tetra/index.html", size: 40)

            // In the host.
            #expect(
                try await store.listedKeys(matching: "ASSETS.oth") == ["https://assets.other/flipart-logo.png"]
            )
            #expect(try await store.listedKeys(matching: "cdn.example").count == 3)
            // In the path, whatever the case on either side.
            #expect(
                try await store.listedKeys(matching: "flipart", sort: .size) == [
                    "https://cdn.example/games/flipart/index.html", "https://cdn.example/games/flipart/app.js",
                    "https://assets.other/flipart-logo.png",
                ]
            )
            #expect(
                try await store.listedKeys(matching: "GAMES/FLIPART/INDEX") == [
                    "https://cdn.example/games/flipart/index.html"
                ]
            )
            // Surrounding white space is ignored.
            #expect(try await store.listedKeys(matching: "  tetra\n").count == 1)

            let result = try await store.listEntries(matching: "index.html", sort: .recent, page: 1, pageSize: 1)
            #expect(result.entries.map(\.key.rawValue) == ["https://cdn.example/games/tetra/index.html"])
            #expect(result.total == 2)
            #expect(result.isTotalExact)
            #expect(result.hasMore)
            let last = try await store.listEntries(matching: "index.html", sort: .recent, page: 2, pageSize: 1)
            #expect(last.entries.map(\.key.rawValue) == ["https://cdn.example/games/flipart/index.html"])
            #expect(!last.hasMore)
            let past = try await store.listEntries(matching: "index.html", sort: .recent, page: 3, pageSize: 1)
            #expect(past.entries.isEmpty)
            #expect(!past.hasMore)
            #expect(past.total == 2)

            let none = try await store.listEntries(matching: "no-such-thing", sort: .url, page: 1, pageSize: 10)
            #expect(none == EntryPage(entries: [], page: 1, pageSize: 10, total: 0, hasMore: false))
        }
    }

    @Test
    func searchFollowsChangedAndRemovedEntries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let key = "https://example.com/level"
            try await store.put(displayURL: "https://example.com/level?campaign=spring", at: key)
            #expect(try await store.listedKeys(matching: "spring") == [key])

            // Stored again from another URL with the same key: the old URL no longer matches.
            try await store.put(displayURL: "https://example.com/level?campaign=autumn", at: key, size: 20)
            #expect(try await store.listedKeys(matching: "spring").isEmpty)
            #expect(try await store.listedKeys(matching: "autumn") == [key])

            try await store.removeEntry(for: try cacheKey(key))
            #expect(try await store.listedKeys(matching: "autumn").isEmpty)
            #expect(try await store.listedKeys(matching: "example").isEmpty)
        }
    }

    @Test
    func hostileSearchTextIsMatchedLiterally() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let displayURLs = [
                "https://example.com/q?text=\"quoted\"",
                "https://example.com/glob/*star*",
                "https://example.com/page?x=<script>alert(1)</script>",
                "https://example.com/words/AND OR NOT/NEAR(a b)",
                "https://example.com/col:umn^caret{x}-minus+plus",
                "https://example.com/percent%25_under\\back",
                "https://example.com/café/Ünïcode/🎮",
            ]
            for (index, url) in displayURLs.enumerated() {
                try await store.put(displayURL: url, at: "https://example.com/entry/\(index)")
            }
            func matches(_ query: String) async throws -> [Int] {
                try await store.listedKeys(matching: query).map { key in
                    Int(key.split(separator: "/").last.map(String.init) ?? "") ?? -1
                }.sorted()
            }

            #expect(try await matches("\"quoted\"") == [0])
            #expect(try await matches("t=\"") == [0])
            #expect(try await matches("\"\"\"") == [])
            #expect(try await matches("*star*") == [1])
            #expect(try await matches("b/*") == [1])
            #expect(try await matches("***") == [])
            #expect(try await matches("<script>") == [2])
            #expect(try await matches("</SCRIPT>") == [2])
            #expect(try await matches("alert(1)") == [2])
            #expect(try await matches("AND OR NOT") == [3])
            #expect(try await matches("and or not") == [3])
            #expect(try await matches("OR NOT AND") == [])
            #expect(try await matches("NEAR(a b)") == [3])
            #expect(try await matches("NEAR(a, b)") == [])
            #expect(try await matches("col:umn") == [4])
            #expect(try await matches("^caret") == [4])
            #expect(try await matches("{x}-minus+") == [4])
            #expect(try await matches("%25_under\\") == [5])
            #expect(try await matches("%_u") == [])
            #expect(try await matches("nt_%") == [])
            // Case is folded beyond ASCII; accents are not removed.
            #expect(try await matches("CAFé") == [6])
            #expect(try await matches("CAFÉ") == [6])
            #expect(try await matches("üNÏC") == [6])
            #expect(try await matches("cafe/") == [])
            #expect(try await matches("e/🎮") == [6])
            #expect(try await matches("🎮🎮🎮") == [])
            // A NUL can be in no URL.
            #expect(try await matches("abc\u{0}def") == [])
            #expect(try await matches("https") == Array(0..<displayURLs.count))
        }
    }

    @Test
    func queriesShorterThanThreeCharactersAreNotSearched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(displayURL: "https://example.com/ab/é", at: "https://example.com/a")
            try await store.put(displayURL: "https://example.com/xy", at: "https://example.com/b")

            for query in ["ab", "a", " ab ", "é", "\"\""] {
                let result = try await store.listEntries(matching: query, sort: .recent, page: 1, pageSize: 10)
                #expect(result.isQueryTooShort, "query \(query.debugDescription)")
                #expect(result.entries.isEmpty)
                #expect(result.total == 0)
                #expect(!result.hasMore)
            }
            // No query at all lists everything.
            for query in [nil, "", "   ", "\n\t"] as [String?] {
                let result = try await store.listEntries(matching: query, sort: .url, page: 1, pageSize: 10)
                #expect(!result.isQueryTooShort)
                #expect(result.entries.map(\.key.rawValue) == ["https://example.com/a", "https://example.com/b"])
                #expect(result.total == 2)
            }
            // Three characters are enough; characters are Unicode scalars ("e" and a combining accent are two).
            #expect(try await store.listedKeys(matching: "/ab") == ["https://example.com/a"])
            #expect(try await store.listedKeys(matching: "/e\u{301}").isEmpty)
            #expect(try await store.listedKeys(matching: "b/é") == ["https://example.com/a"])
            #expect(try await store.listEntries(matching: "/é", sort: .url, page: 1, pageSize: 5).isQueryTooShort)
        }
    }

    @Test
    func aSearchMatchingMoreThanTheResultLimitPagesTheNewestMatches() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // More matches of `a_b%c\d` than the limit, sizes falling with i; and rows that the
            // pattern would match if `_` and `%` were wildcards.
            let matchCount = Store.searchResultLimit + 300
            let prefix = "https://many.example/a_b%c\\d/"
            let keys = (0..<matchCount).map { "\(prefix)\($0)" }
            try await GeneratedRows(prefix: prefix, count: matchCount, sizeSQL: "\(matchCount) - i").insert(into: store)
            try await GeneratedRows(prefix: "https://many.example/aXbYYc\\d/", count: 200).insert(into: store)
            // The rows were added in order of i: the newest matches are the last `searchResultLimit`.
            let newest = Array(keys[300...])

            let first = try await store.listEntries(matching: "A_B%C\\D", sort: .recent, page: 1, pageSize: 50)
            #expect(!first.isTotalExact)
            #expect(first.total == Store.searchResultLimit)
            #expect(first.hasMore)
            #expect(first.entries.map(\.key.rawValue) == newest.reversed().prefix(50).map { $0 })

            var seen: [String] = []
            var page = 1
            while true {
                let result = try await store.listEntries(matching: "a_b%c\\d", sort: .size, page: page, pageSize: 500)
                #expect(!result.isTotalExact)
                #expect(result.total == Store.searchResultLimit)
                seen += result.entries.map(\.key.rawValue)
                guard result.hasMore else {
                    break
                }
                page += 1
            }
            #expect(page == Store.searchResultLimit / 500)
            #expect(seen == newest)

            let past = try await store.listEntries(matching: "a_b%c\\d", sort: .url, page: 100, pageSize: 50)
            #expect(past.entries.isEmpty)
            #expect(!past.hasMore)
            #expect(past.total == Store.searchResultLimit)

            // A narrower query is counted and sorted exactly: /1, /10...19, /100...199, /1000...1999.
            let narrow = try await store.listEntries(matching: "%c\\d/1", sort: .url, page: 3, pageSize: 500)
            #expect(narrow.isTotalExact)
            #expect(narrow.total == 1 + 10 + 100 + 1000)
            #expect(!narrow.hasMore)
            #expect(
                narrow.entries.map(\.key.rawValue)
                    == Array(keys.filter { $0.hasPrefix("\(prefix)1") }.sorted()[1000...]))
            #expect(try await store.listEntries(matching: "ayb", sort: .url, page: 1, pageSize: 5).total == 0)
        }
    }

    @Test
    func recordUseMovesLastUsedButNotTheRecentOrder() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let old = try await store.put(Array("old".utf8), at: "https://example.com/old")
            let new = try await store.put(Array("new".utf8), at: "https://example.com/new")
            try await store.recordUse([:])

            // Whole seconds, which survive the index's seconds-since-1970 exactly.
            let later = Date(timeIntervalSince1970: (new.storedAt.timeIntervalSince1970 + 3600).rounded())
            try await store.recordUse([
                old.key: later,
                try cacheKey("https://example.com/never-stored"): later,
            ])
            let page = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 10)
            // Sorted by store time: "new" stays first although "old" was used last.
            #expect(page.entries.map(\.key) == [new.key, old.key])
            #expect(page.entries.map(\.lastUsed) == [new.storedAt, later])
            #expect(page.entries.map(\.storedAt) == [new.storedAt, old.storedAt])
            #expect(page.total == 2)

            // An earlier time (a late flush from another process) does not move it back.
            try await store.recordUse([old.key: later.addingTimeInterval(-60), new.key: later.addingTimeInterval(60)])
            let again = try await store.listEntries(matching: "example", sort: .recent, page: 1, pageSize: 10)
            #expect(again.entries.map(\.lastUsed) == [later.addingTimeInterval(60), later])

            // Storing the entry again starts its last use afresh at the new store time.
            let restored = try await store.put(Array("old 2".utf8), at: "https://example.com/old")
            let summary = try await store.listEntries(matching: "/old", sort: .recent, page: 1, pageSize: 10).entries
            #expect(summary.map(\.lastUsed) == [restored.storedAt])
        }
    }
}
