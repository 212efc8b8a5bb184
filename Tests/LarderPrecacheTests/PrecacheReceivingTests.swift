// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import Foundation
    import LarderHTTP
    import LarderStore
    import LarderTestSupport
    import LarderUpstream
    import Testing

    @testable import LarderCurl
    @testable import LarderPrecache

    /// The runner through libcurl against a real origin: each body is written and hashed by curl's
    /// thread into its temporary file (``Upstream/receive(_:into:)``), and a game's files are staged
    /// in shared install batches.
    @Suite("Precache runner: bodies received on curl's thread")
    struct PrecacheReceivingTests {
        /// A distinct length for file `index`, so that no two bodies are alike.
        private static func length(_ index: Int) -> Int64 {
            Int64(1_000 + index * 37)
        }

        @Test("every file lands whole, under the SHA-256 of its bytes, across several install batches")
        func bodiesLandWhole() async throws {
            let origin = try await TestOrigin.start()
            let count = 150
            let files = (0..<count).map { "g/file-\($0).bin" } + ["g/big.bin"]
            origin.setRoute(
                "/g/offline.meta.json",
                .text("{\"files\": [\(files.map { "\"\($0)\"" }.joined(separator: ","))]}", contentType: "application/json"))
            for index in 0..<count {
                origin.setRoute("/g/file-\(index).bin", TestResponse(body: .generated(length: Self.length(index))))
            }
            // Many chunks, each written by curl's thread as it comes.
            origin.setRoute("/g/big.bin", TestResponse(body: .generated(length: 300_000), faults: [.chunkSize(7_000)]))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiving-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = try Store(directory: directory)
            defer { try? store.close() }

            let report = await PrecacheRunner(store: store, upstream: upstream).run(GamesList.parse(origin.url("/g") + "\n", source: "t"))

            #expect(report.games.first?.state == .ready)
            #expect(report.downloaded == count + 1)
            for (name, length) in (0..<count).map({ ("file-\($0).bin", Self.length($0)) }) + [("big.bin", 300_000)] {
                let entry = try #require(try await store.entry(for: try CacheKey(url: origin.url("/g/\(name)"))))
                #expect(entry.kind == .precached)
                #expect(entry.bodyHash == GeneratedBody.sha256Hex(length: length))
                #expect(entry.bodyPath.hasSuffix("/" + GeneratedBody.sha256Hex(length: length)))
                let bytes = try #require(FileManager.default.contents(atPath: entry.bodyPath))
                #expect(Bytes([UInt8](bytes)) == Bytes(GeneratedBody.bytes(0..<length)))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/tmp").isEmpty)
            try await origin.stop()
        }

        @Test("a body cut short every time is neither installed nor staged, and leaves no temporary file; the rest of the game is")
        func shortBodyLeavesNothing() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute(
                "/g/offline.meta.json", .text("{\"files\": [\"g/whole.bin\", \"g/short.bin\"]}", contentType: "application/json"))
            origin.setRoute("/g/whole.bin", TestResponse(body: .generated(length: 50_000)))
            origin.setRoute("/g/short.bin", TestResponse(body: .generated(length: 100_000), faults: [.closeAfter(bytes: 40_000)]))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiving-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = try Store(directory: directory)
            defer { try? store.close() }
            var options = PrecacheOptions()
            options.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(1))

            let report = await PrecacheRunner(store: store, upstream: upstream, options: options)
                .run(GamesList.parse(origin.url("/g") + "\n", source: "t"))

            let shortKey = try CacheKey(url: origin.url("/g/short.bin"))
            #expect(origin.requestCount("/g/short.bin") == 2)
            #expect(report.games.first?.state == .partial)
            #expect(report.games.first?.failures.map(\.url) == [origin.url("/g/short.bin")])
            #expect(try await store.entry(for: shortKey) == nil)
            #expect(try await store.stagedStates(for: [shortKey]).isEmpty)
            let whole = try #require(try await store.entry(for: try CacheKey(url: origin.url("/g/whole.bin"))))
            #expect(
                FileManager.default.contents(atPath: whole.bodyPath).map { Bytes([UInt8]($0)) } == Bytes(GeneratedBody.bytes(0..<50_000)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/tmp").isEmpty)
            try await origin.stop()
        }
    }
#endif
