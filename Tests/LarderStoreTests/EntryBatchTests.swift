import Foundation
import LarderHTTP
import LarderStore
import Testing

struct EntryBatchTests {
    @Test
    func storedStatesFindPresentEntriesAcrossBatchesAndLeaveOutTheRest() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // More present keys than one query names, so the answer needs every batch.
            let presentCount = 520
            var expected: [CacheKey: StoredKeyState] = [:]
            for index in 0..<presentCount {
                let url = "https://cdn.example/assets/\(index).js"
                let body = Array("body \(index % 7)".utf8)
                let isPrecached = index.isMultiple(of: 3)
                let revision = index.isMultiple(of: 5) ? "rev-\(index)" : nil
                try await store.put(body, at: url, kind: isPrecached ? .precached : .runtime, revision: revision)
                expected[try cacheKey(url)] = StoredKeyState(
                    kind: isPrecached ? .precached : .runtime,
                    revision: revision,
                    bodySize: Int64(body.count)
                )
            }

            // An entry whose body file was deleted, and one whose body file was truncated.
            let deleted = try await store.put(sampleBody(count: 800, seed: 40), at: "https://cdn.example/deleted.png")
            try FileManager.default.removeItem(atPath: deleted.bodyPath)
            let truncated = try await store.put(sampleBody(count: 800, seed: 41), at: "https://cdn.example/short.png")
            let handle = try #require(FileHandle(forWritingAtPath: truncated.bodyPath))
            try handle.truncate(atOffset: 100)
            try handle.close()

            var asked = Array(expected.keys)
            asked += try (0..<600).map { try cacheKey("https://cdn.example/absent/\($0).js") }
            asked += [deleted.key, truncated.key]
            // Duplicates are fine.
            asked += Array(expected.keys.prefix(10))
            asked.shuffle()

            let states = try await store.storedStates(for: asked)
            #expect(states.count == presentCount)
            // Compared key by key, so a failure names the keys rather than printing both dictionaries.
            let wrong = expected.filter { states[$0.key] != $0.value }.map(\.key).sorted()
            #expect(wrong.isEmpty)
            #expect(states[deleted.key] == nil)
            #expect(states[truncated.key] == nil)
            #expect(try await store.storedStates(for: []).isEmpty)
        }
    }

    @Test
    func pinMakesEntriesPrecachedAndCountsOnlyRealChanges() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let a = try await store.put(Array("a".utf8), at: "https://example.com/a").key
            let b = try await store.put(Array("b".utf8), at: "https://example.com/b", revision: "old-b").key
            let c = try await store.put(Array("c".utf8), at: "https://example.com/c").key
            let d = try await store.put(Array("d".utf8), at: "https://example.com/d", kind: .precached, revision: "r0")
                .key
            let missing = try cacheKey("https://example.com/missing")

            // a and b change; d is precached with that revision already; the missing key has no entry.
            let changed = try await store.pin([a, b, missing, d], revisions: [b: "rb", d: "r0", missing: "x"])
            #expect(changed == 2)
            #expect(
                try await store.storedStates(for: [a, b, c, d, missing]) == [
                    a: StoredKeyState(kind: .precached, revision: nil, bodySize: 1),
                    b: StoredKeyState(kind: .precached, revision: "rb", bodySize: 1),
                    c: StoredKeyState(kind: .runtime, revision: nil, bodySize: 1),
                    d: StoredKeyState(kind: .precached, revision: "r0", bodySize: 1),
                ]
            )

            // A new revision for a precached entry is a change; pinning again without one is not.
            #expect(try await store.pin([d], revisions: [d: "r1"]) == 1)
            #expect(try await store.entry(for: d)?.revision == "r1")
            #expect(try await store.pin([a, b, d]) == 0)
            #expect(try await store.entry(for: b)?.revision == "rb")
            #expect(try await store.statistics().precachedEntries == 3)
        }
    }

    @Test
    func pinHandlesMoreKeysThanOneBatch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let first = try await store.put(Array("first".utf8), at: "https://example.com/first").key
            let last = try await store.put(Array("last".utf8), at: "https://example.com/last").key
            let absent = try (0..<1200).map { try cacheKey("https://example.com/absent/\($0)") }
            #expect(try await store.pin([first] + absent + [last], revisions: [last: "L"]) == 2)
            #expect(try await store.entry(for: first)?.kind == .precached)
            #expect(try await store.entry(for: last)?.kind == .precached)
            #expect(try await store.entry(for: last)?.revision == "L")
        }
    }

    @Test
    func removeEntriesDeletesBodiesOnlyWhenUnreferenced() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = sampleBody(count: 2000, seed: 42)
            let x = try await store.put(shared, at: "https://example.com/x", kind: .precached)
            let y = try await store.put(shared, at: "https://example.com/y")
            let z = try await store.put(shared, at: "https://example.com/z", kind: .precached)
            let w = try await store.put(sampleBody(count: 900, seed: 43), at: "https://example.com/w")
            let missing = try cacheKey("https://example.com/missing")

            #expect(try await store.removeEntries([x.key, w.key, missing, x.key]) == 2)
            #expect(try await store.entry(for: x.key) == nil)
            #expect(try await store.entry(for: w.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: w.bodyPath))
            #expect(FileManager.default.fileExists(atPath: x.bodyPath))
            #expect(try await store.body(at: "https://example.com/y") == shared)
            #expect(try await store.body(at: "https://example.com/z") == shared)

            #expect(try await store.removeEntries([y.key, z.key]) == 2)
            #expect(regularFiles(under: "\(directory)/bodies").isEmpty)
            #expect(try await store.removeEntries([y.key]) == 0)
            #expect(try await store.removeEntries([]) == 0)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))
        }
    }

    @Test
    func removeEntriesHandlesMoreKeysThanOneBatch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let body = sampleBody(count: 100, seed: 44)
            var keys: [CacheKey] = []
            for index in 0..<3 {
                keys.append(try await store.put(body, at: "https://example.com/kept/\(index)").key)
            }
            let absent = try (0..<1100).map { try cacheKey("https://example.com/absent/\($0)") }
            let removed = try await store.removeEntries([keys[0]] + absent + [keys[1]])
            #expect(removed == 2)
            #expect(try await store.entry(for: keys[0]) == nil)
            #expect(try await store.entry(for: keys[1]) == nil)
            #expect(try await store.body(at: "https://example.com/kept/2") == body)
        }
    }
}
