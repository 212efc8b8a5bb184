import Foundation
import LarderHTTP
import LarderStore
import Testing

struct StoreTests {
    @Test
    func roundTripKeepsBytesAndEndToEndHeaders() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let body = sampleBody(count: 100_003, seed: 1)
            let head = StoredResponseHead(
                url: "https://cdn.example/games/flipart/index.html?utm_source=news#level=3",
                status: 203,
                headers: [
                    HeaderField(name: "Content-Type", value: "text/html; charset=utf-8"),
                    HeaderField(name: "Connection", value: "close, X-Hop"),
                    HeaderField(name: "x-hop", value: "1"),
                    HeaderField(name: "Keep-Alive", value: "timeout=5"),
                    HeaderField(name: "Transfer-Encoding", value: "chunked"),
                    HeaderField(name: "Set-Cookie", value: "session=1"),
                    HeaderField(name: "set-cookie2", value: "old=1"),
                    HeaderField(name: "ETag", value: "\"abc\""),
                    HeaderField(name: "Proxy-Authenticate", value: "Basic"),
                    HeaderField(name: "Vary", value: "Accept-Language"),
                    HeaderField(name: "Cache-Control", value: "max-age=60"),
                    HeaderField(name: "Cache-Control", value: "public"),
                ],
                requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
                responseTime: Date(timeIntervalSince1970: 1_700_000_001.5),
                varyRequestHeaders: [HeaderField(name: "Accept-Language", value: "fr-FR")]
            )
            let before = Date()
            let committed = try await store.put(body, at: head.url, kind: .precached, head: head)
            let after = Date()

            let key = try CacheKey(url: "https://CDN.example:443/games/flipart/index.html")
            let entry = try #require(try await store.entry(for: key))
            #expect(entry.key == key)
            #expect(entry.key.rawValue == "https://cdn.example/games/flipart/index.html")
            #expect(entry.url == "https://cdn.example/games/flipart/index.html?utm_source=news")
            #expect(entry.status == 203)
            #expect(
                entry.headers == [
                    HeaderField(name: "Content-Type", value: "text/html; charset=utf-8"),
                    HeaderField(name: "ETag", value: "\"abc\""),
                    HeaderField(name: "Vary", value: "Accept-Language"),
                    HeaderField(name: "Cache-Control", value: "max-age=60"),
                    HeaderField(name: "Cache-Control", value: "public"),
                ]
            )
            #expect(entry.header("content-type") == "text/html; charset=utf-8")
            #expect(entry.header("CACHE-CONTROL") == "max-age=60")
            #expect(entry.header("Set-Cookie") == nil)
            #expect(entry.varyRequestHeaders == [HeaderField(name: "Accept-Language", value: "fr-FR")])
            #expect(entry.kind == .precached)
            #expect(entry.bodySize == Int64(body.count))
            #expect(entry.requestTime == Date(timeIntervalSince1970: 1_700_000_000.25))
            #expect(entry.responseTime == Date(timeIntervalSince1970: 1_700_000_001.5))
            #expect(entry.storedAt.timeIntervalSince(before) > -0.001)
            #expect(after.timeIntervalSince(entry.storedAt) > -0.001)
            #expect(entry.bodyPath == "\(directory)/bodies/\(entry.bodyHash.prefix(2))/\(entry.bodyHash)")
            #expect(entry.bodyHash.count == 64)
            #expect(FileManager.default.contents(atPath: entry.bodyPath).map { [UInt8]($0) } == body)

            // What commit returned is what a read gives back.
            #expect(committed.key == entry.key)
            #expect(committed.headers == entry.headers)
            #expect(committed.bodyHash == entry.bodyHash)
            #expect(committed.bodyPath == entry.bodyPath)
            #expect(committed.storedAt == entry.storedAt)
            #expect(committed.url == entry.url)

            // Nothing is left in tmp/; the only body file is the one named by its hash.
            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
            #expect(regularFiles(under: "\(directory)/bodies") == ["\(entry.bodyHash.prefix(2))/\(entry.bodyHash)"])
            #expect(
                try await store.statistics()
                    == StoreStatistics(
                        entries: 1,
                        bodies: 1,
                        bodyBytes: Int64(body.count),
                        precachedEntries: 1,
                        precachedBytes: Int64(body.count)
                    )
            )
        }
    }

    @Test
    func bodyIsNamedByItsSHA256() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let entry = try await store.put(Array("abc".utf8), at: "http://example.com/abc.txt")
            let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            #expect(entry.bodyHash == expected)
            #expect(entry.bodyPath == "\(directory)/bodies/ba/\(expected)")

            let empty = try await store.put([], at: "http://example.com/empty")
            #expect(empty.bodyHash == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(try await store.body(at: "http://example.com/empty") == [])
        }
    }

    @Test
    func equalBodiesShareOneFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let body = sampleBody(count: 5000, seed: 2)
            let first = try await store.put(body, at: "https://a.example/app.js")
            let second = try await store.put(body, at: "https://b.example/copy-of-app.js")
            #expect(first.bodyPath == second.bodyPath)
            #expect(regularFiles(under: "\(directory)/bodies").count == 1)
            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
            #expect(try await store.body(at: "https://a.example/app.js") == body)
            #expect(try await store.body(at: "https://b.example/copy-of-app.js") == body)
            #expect(try await store.statistics() == StoreStatistics(entries: 2, bodies: 1, bodyBytes: 5000))
        }
    }

    @Test
    func replacingAnEntryDeletesItsOldBodyOnlyWhenUnreferenced() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let oldBody = sampleBody(count: 3000, seed: 3)
            let newBody = sampleBody(count: 4000, seed: 4)
            let oldA = try await store.put(oldBody, at: "https://example.com/a")
            try await store.put(oldBody, at: "https://example.com/b")

            // "a" moves to a new body; "b" still references the old one, which must stay.
            let newA = try await store.put(newBody, at: "https://example.com/a")
            #expect(newA.bodyHash != oldA.bodyHash)
            #expect(FileManager.default.fileExists(atPath: oldA.bodyPath))
            #expect(regularFiles(under: "\(directory)/bodies").count == 2)
            #expect(try await store.body(at: "https://example.com/a") == newBody)
            #expect(try await store.body(at: "https://example.com/b") == oldBody)

            // Replacing with an identical body keeps the file.
            try await store.put(newBody, at: "https://example.com/a")
            #expect(FileManager.default.fileExists(atPath: newA.bodyPath))

            // Now nothing references the old body: it is deleted.
            try await store.put(newBody, at: "https://example.com/b")
            #expect(!FileManager.default.fileExists(atPath: oldA.bodyPath))
            #expect(regularFiles(under: "\(directory)/bodies") == ["\(newA.bodyHash.prefix(2))/\(newA.bodyHash)"])
            #expect(try await store.statistics() == StoreStatistics(entries: 2, bodies: 1, bodyBytes: 4000))
        }
    }

    @Test
    func replacingKeepsOneRowPerKeyAndUpdatesItsFields() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(Array("one".utf8), at: "https://example.com/x", kind: .runtime)
            let head = sampleHead(
                url: "https://example.com/x#new",
                headers: [HeaderField(name: "ETag", value: "\"2\"")]
            )
            try await store.put(Array("two!".utf8), at: "https://example.com/x?fbclid=1", kind: .precached, head: head)
            let entry = try #require(try await store.entry(for: try CacheKey(url: "https://example.com/x")))
            #expect(entry.kind == .precached)
            #expect(entry.url == "https://example.com/x")
            #expect(entry.headers == [HeaderField(name: "ETag", value: "\"2\"")])
            #expect(try await store.body(at: "https://example.com/x") == Array("two!".utf8))
            #expect(try await store.statistics().entries == 1)
        }
    }

    @Test
    func truncatedBodyThrowsAndLeavesThePreviousEntry() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://example.com/level.bin"
            let previousBody = sampleBody(count: 2048, seed: 5)
            let previous = try await store.put(previousBody, at: url)

            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: sampleBody(count: 1000, seed: 6))
            #expect(writer.bytesWritten == 1000)
            await #expect(throws: StoreError.lengthMismatch(expected: 4096, actual: 1000)) {
                try await writer.commit(
                    key: try CacheKey(url: url),
                    head: sampleHead(url: url),
                    kind: .runtime,
                    expectedLength: 4096
                )
            }

            let entry = try #require(try await store.entry(for: try CacheKey(url: url)))
            #expect(entry.bodyHash == previous.bodyHash)
            #expect(entry.storedAt == previous.storedAt)
            #expect(try await store.body(at: url) == previousBody)
            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
            #expect(regularFiles(under: "\(directory)/bodies").count == 1)

            // The writer is finished: it cannot be committed or written to afterwards.
            await #expect(throws: StoreError.writerFinished(temporaryPath: writer.temporaryPath)) {
                try await writer.commit(
                    key: try CacheKey(url: url),
                    head: sampleHead(url: url),
                    kind: .runtime,
                    expectedLength: nil
                )
            }
            #expect(throws: StoreError.self) {
                try writer.write(contentsOf: [1, 2, 3])
            }
        }
    }

    @Test
    func longerBodyThanDeclaredIsAlsoRefused() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: [UInt8](repeating: 7, count: 11))
            await #expect(throws: StoreError.lengthMismatch(expected: 10, actual: 11)) {
                try await writer.commit(
                    key: try CacheKey(url: "http://example.com/"),
                    head: sampleHead(url: "http://example.com/"),
                    kind: .runtime,
                    expectedLength: 10
                )
            }
            #expect(try await store.entry(for: try CacheKey(url: "http://example.com/")) == nil)
            #expect(regularFiles(under: directory).filter { !$0.hasPrefix("index.") && !$0.hasPrefix("runs/") }.isEmpty)
        }
    }

    @Test
    func writerDroppedWithoutCommitLeavesThePreviousEntry() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://example.com/app.js"
            let previousBody = sampleBody(count: 1500, seed: 7)
            try await store.put(previousBody, at: url)

            do {
                let writer = try store.makeBodyWriter()
                try writer.write(contentsOf: sampleBody(count: 1500, seed: 8))
                #expect(regularFiles(under: "\(directory)/tmp").count == 1)
                // The fetch fails here: the writer goes out of scope without commit or discard.
            }

            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
            #expect(try await store.body(at: url) == previousBody)

            let discarded = try store.makeBodyWriter()
            try discarded.write(contentsOf: [1, 2, 3])
            discarded.discard()
            #expect(!FileManager.default.fileExists(atPath: discarded.temporaryPath))
            #expect(try await store.body(at: url) == previousBody)
        }
    }

    @Test
    func bodyRenamedIntoPlaceWithoutAnIndexRowIsNotServed() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // A crash after the body was synced and renamed but before the index commit.
            let body = Array("abc".utf8)
            let hash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            let temporary = "\(directory)/tmp/crashed.partial"
            #expect(FileManager.default.createFile(atPath: temporary, contents: Data(body)))
            try FileManager.default.createDirectory(atPath: "\(directory)/bodies/ba", withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: temporary, toPath: "\(directory)/bodies/ba/\(hash)")

            #expect(try await store.entry(for: try CacheKey(url: "https://example.com/abc")) == nil)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))

            // Fetching it again reuses the orphan (same content) and serves it.
            let entry = try await store.put(body, at: "https://example.com/abc")
            #expect(entry.bodyHash == hash)
            #expect(regularFiles(under: "\(directory)/bodies") == ["ba/\(hash)"])
            #expect(try await store.body(at: "https://example.com/abc") == body)
        }
    }

    @Test
    func bodyDeletedBehindTheIndexIsNotServed() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://example.com/sprite.png"
            let body = sampleBody(count: 700, seed: 9)
            let entry = try await store.put(body, at: url)
            try FileManager.default.removeItem(atPath: entry.bodyPath)
            #expect(try await store.entry(for: try CacheKey(url: url)) == nil)

            // Storing it again restores it.
            try await store.put(body, at: url)
            #expect(try await store.body(at: url) == body)
        }
    }

    @Test
    func bodyTruncatedBehindTheIndexIsNotServedAndIsReplacedOnRefetch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = "https://example.com/music.ogg"
            let body = sampleBody(count: 9000, seed: 10)
            let entry = try await store.put(body, at: url)
            let handle = try #require(FileHandle(forWritingAtPath: entry.bodyPath))
            try handle.truncate(atOffset: 4000)
            try handle.close()
            #expect(try await store.entry(for: try CacheKey(url: url)) == nil)

            // A refetch must not dedup onto the damaged file: it replaces it.
            try await store.put(body, at: url)
            #expect(try await store.body(at: url) == body)
        }
    }

    @Test
    func reopenedStoreSeesTheEntries() async throws {
        try await withTemporaryDirectory { directory in
            let first = try Store(directory: directory)
            let bodies = (0..<5).map { sampleBody(count: 100 * ($0 + 1), seed: UInt8(20 + $0)) }
            for (index, body) in bodies.enumerated() {
                try await first.put(
                    body,
                    at: "https://example.com/file\(index)",
                    kind: index.isMultiple(of: 2) ? .precached : .runtime
                )
            }
            let statistics = try await first.statistics()
            try first.close()

            let second = try Store(directory: directory)
            defer { try? second.close() }
            #expect(try await second.statistics() == statistics)
            #expect(
                statistics
                    == StoreStatistics(entries: 5, bodies: 5, bodyBytes: 1500, precachedEntries: 3, precachedBytes: 900)
            )
            for (index, body) in bodies.enumerated() {
                let entry = try #require(
                    try await second.entry(for: try CacheKey(url: "https://example.com/file\(index)"))
                )
                #expect(entry.kind == (index.isMultiple(of: 2) ? .precached : .runtime))
                #expect(try await second.body(at: "https://example.com/file\(index)") == body)
            }
        }
    }

    @Test
    func twoStoresOnOneDirectoryWriteConcurrently() async throws {
        try await withTemporaryDirectory { directory in
            let serve = try Store(directory: directory)
            let precache = try Store(directory: directory)
            defer {
                try? serve.close()
                try? precache.close()
            }
            let perStore = 25
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<perStore {
                    group.addTask {
                        // Some bodies are shared between the two stores, to exercise dedup across them.
                        try await serve.put(
                            sampleBody(count: 2000, seed: UInt8(index % 10)),
                            at: "https://serve.example/\(index)"
                        )
                    }
                    group.addTask {
                        try await precache.put(
                            sampleBody(count: 2000, seed: UInt8(index % 10)),
                            at: "https://precache.example/\(index)",
                            kind: .precached
                        )
                    }
                }
                try await group.waitForAll()
            }
            for store in [serve, precache] {
                #expect(
                    try await store.statistics()
                        == StoreStatistics(
                            entries: 2 * perStore,
                            bodies: 10,
                            bodyBytes: 20_000,
                            precachedEntries: perStore,
                            precachedBytes: Int64(perStore * 2000)
                        )
                )
            }
            for index in 0..<perStore {
                let expected = sampleBody(count: 2000, seed: UInt8(index % 10))
                #expect(try await precache.body(at: "https://serve.example/\(index)") == expected)
                #expect(try await serve.body(at: "https://precache.example/\(index)") == expected)
            }
            #expect(regularFiles(under: "\(directory)/bodies").count == 10)
            #expect(regularFiles(under: "\(directory)/tmp").isEmpty)
        }
    }

    @Test
    func severalStoresCanOpenANewDirectoryAtOnce() async throws {
        try await withTemporaryDirectory { directory in
            // A new index is switched to WAL and migrated by whichever open comes first; the others must wait
            // for it rather than fail with "database is locked".
            let stores = try await withThrowingTaskGroup(of: Store.self) { group in
                for _ in 0..<6 {
                    group.addTask { try Store(directory: directory) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            defer {
                for store in stores {
                    try? store.close()
                }
            }
            try await stores[0].put(Array("shared".utf8), at: "https://example.com/")
            for store in stores {
                #expect(try await store.body(at: "https://example.com/") == Array("shared".utf8))
            }
        }
    }

    @Test
    func storesOpenAndCloseWhileAnotherWrites() async throws {
        try await withTemporaryDirectory { directory in
            let serve = try Store(directory: directory)
            defer { try? serve.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<40 {
                        try await serve.put(
                            sampleBody(count: 512, seed: UInt8(index)),
                            at: "https://serve.example/\(index)"
                        )
                    }
                }
                group.addTask {
                    // Like `larder status` or `larder precache` started again and again beside `larder serve`.
                    for index in 0..<8 {
                        let other = try Store(directory: directory)
                        try await other.put(Array("run \(index)".utf8), at: "https://other.example/\(index)")
                        _ = try await other.statistics()
                        try other.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await serve.statistics().entries == 48)
        }
    }

    @Test
    func removeEntryDeletesTheBodyWhenUnreferenced() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = sampleBody(count: 1234, seed: 11)
            let entry = try await store.put(shared, at: "https://example.com/one")
            try await store.put(shared, at: "https://example.com/two")

            #expect(try await store.removeEntry(for: try CacheKey(url: "https://example.com/one#x")))
            #expect(try await store.entry(for: try CacheKey(url: "https://example.com/one")) == nil)
            #expect(FileManager.default.fileExists(atPath: entry.bodyPath))
            #expect(try await store.body(at: "https://example.com/two") == shared)

            #expect(try await store.removeEntry(for: try CacheKey(url: "https://example.com/two")))
            #expect(!FileManager.default.fileExists(atPath: entry.bodyPath))
            #expect(regularFiles(under: "\(directory)/bodies").isEmpty)

            #expect(try await store.removeEntry(for: try CacheKey(url: "https://example.com/two")) == false)
            #expect(try await store.statistics() == StoreStatistics(entries: 0, bodies: 0, bodyBytes: 0))
        }
    }

    @Test
    func openingCreatesTheLayoutAndResolvesTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: "\(directory)/nested/./cache/")
            defer { try? store.close() }
            #expect(store.directory == "\(directory)/nested/cache")
            for name in ["index.sqlite", "index.lock", "bodies", "tmp", "runs"] {
                #expect(FileManager.default.fileExists(atPath: "\(store.directory)/\(name)"))
            }
        }
    }

    @Test
    func openingAnImpossibleDirectoryNamesIt() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/not-a-directory"
            #expect(FileManager.default.createFile(atPath: file, contents: Data()))
            do {
                _ = try Store(directory: "\(file)/cache")
                Issue.record("opened a cache directory inside a regular file")
            } catch let error as StoreError {
                guard case .cannotOpen(let named, _) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(named == "\(file)/cache")
                #expect(error.description.contains("\(file)/cache"))
            }
        }
    }

    @Test
    func errorDescriptionsNameThePathAndProblem() {
        let io = StoreError.io(path: "/cache/tmp/x.partial", operation: "fsync", errno: ENOSPC)
        #expect(io.description == "cannot fsync /cache/tmp/x.partial: No space left on device (errno \(ENOSPC))")
        #expect(
            StoreError.lengthMismatch(expected: 10, actual: 4).description.contains("declared 10 bytes but 4 arrived")
        )
    }
}

struct HeaderFieldTests {
    @Test
    func storableDropsHopByHopConnectionNamedAndCookieFields() {
        let headers = [
            HeaderField(name: "Connection", value: "keep-alive, X-Trace , x-debug"),
            HeaderField(name: "connection", value: "X-Other"),
            HeaderField(name: "X-Trace", value: "1"),
            HeaderField(name: "X-DEBUG", value: "1"),
            HeaderField(name: "x-other", value: "1"),
            HeaderField(name: "TE", value: "trailers"),
            HeaderField(name: "Trailer", value: "Expires"),
            HeaderField(name: "Upgrade", value: "websocket"),
            HeaderField(name: "Proxy-Connection", value: "keep-alive"),
            HeaderField(name: "Proxy-Authorization", value: "Basic x"),
            HeaderField(name: "SET-COOKIE", value: "a=1"),
            HeaderField(name: "Content-Length", value: "10"),
            HeaderField(name: "X-Kept", value: "yes"),
            HeaderField(name: "Date", value: "Tue, 14 Nov 2023 22:13:20 GMT"),
        ]
        #expect(
            HeaderField.storable(headers) == [
                HeaderField(name: "Content-Length", value: "10"),
                HeaderField(name: "X-Kept", value: "yes"),
                HeaderField(name: "Date", value: "Tue, 14 Nov 2023 22:13:20 GMT"),
            ]
        )
    }

    @Test
    func namesCompareWithoutCase() {
        #expect(HeaderField(name: "Content-Type", value: "").hasName("content-TYPE"))
        #expect(!HeaderField(name: "Content-Type", value: "").hasName("Content-Typ"))
    }
}
