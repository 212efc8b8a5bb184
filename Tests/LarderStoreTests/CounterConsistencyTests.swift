import Foundation
import Testing

@testable import LarderStore

/// Checks that the counters and the search index the triggers keep agree with the entry rows.
func expectCountersMatchTheEntries(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let recount = try await store.recountForTesting()
    #expect(try await store.totals() == recount.totals, sourceLocation: sourceLocation)
    #expect(try await store.statistics() == recount.statistics, sourceLocation: sourceLocation)
    #expect(recount.searchIndexIsSound, "the search index differs from the entries", sourceLocation: sourceLocation)
}

struct CounterConsistencyTests {
    @Test
    func theRecountNoticesADamagedSearchIndex() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(Array("x".utf8), at: "https://example.com/x")
            #expect(try await store.recountForTesting().searchIndexIsSound)
            // Dropping the trigger lets an URL change bypass the index: the check must see it.
            try await store.executeForTesting(
                sql: """
                    DROP TRIGGER entry_url_updated;
                    UPDATE entry SET url = 'https://changed.example/' WHERE key = 'https://example.com/x';
                    """
            )
            #expect(try await store.recountForTesting().searchIndexIsSound == false)
        }
    }

    @Test
    func countersAndSearchIndexStayExactThroughMixedWritesOfTwoStores() async throws {
        try await withTemporaryDirectory { directory in
            let serve = try Store(directory: directory)
            let precache = try Store(directory: directory)
            defer {
                try? serve.close()
                try? precache.close()
            }
            // A fixed pseudo-random sequence: the same keys, bodies and URLs recur, so entries are
            // replaced (other size, kind or URL), share bodies, get pinned and removed, from both stores.
            var state: UInt32 = 12_345
            func next(_ bound: Int) -> Int {
                state = state &* 1_664_525 &+ 1_013_904_223
                return Int(state >> 16) % bound
            }
            let files = try (0..<12).map { try sampleFile("mixed/\($0).js") }
            for step in 0..<160 {
                let store = step.isMultiple(of: 2) ? serve : precache
                let index = next(files.count)
                let file = files[index]
                switch next(8) {
                case 0, 1, 2:
                    try await store.put(
                        sampleBody(count: 10 * (1 + next(4)), seed: UInt8(next(3))),
                        at: file.url,
                        kind: next(2) == 0 ? .runtime : .precached,
                        head: sampleHead(url: file.url + "?v=\(next(3))")
                    )
                case 3:
                    try await store.pin([file.key])
                case 4:
                    try await store.removeEntry(for: file.key)
                case 5:
                    try await store.removeEntries([file.key, files[next(files.count)].key])
                case 6:
                    _ = try await store.saveGame(
                        sampleGame("g\(next(2))"), files: Array(files.prefix(next(files.count))))
                    _ = try await store.pruneUnlisted(Set(files.map(\.key)))
                default:
                    if next(4) == 0 {
                        try await store.removeRuntimeEntries()
                    } else {
                        _ = try await store.purgeGame(slug: "g\(next(2))")
                    }
                }
                if step.isMultiple(of: 20) {
                    try await expectCountersMatchTheEntries(serve)
                }
            }
            try await expectCountersMatchTheEntries(serve)
            try await expectCountersMatchTheEntries(precache)
            #expect(try await serve.totals().entries > 0)
            try await precache.removeAllEntries()
            try await expectCountersMatchTheEntries(serve)
            #expect(try await serve.totals() == .zero)
        }
    }
}
