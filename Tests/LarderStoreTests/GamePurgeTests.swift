import Foundation
import LarderStore
import Testing

struct GamePurgeTests {
    @Test
    func purgeGameRemovesOnlyWhatNothingElseListsAndMarksTheGamePurged() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let inB = try sampleFile("a/common.js")
            let page = try sampleFile("a/index.html")
            let own = try sampleFile("a/own.js")
            let ownRuntime = try sampleFile("a/runtime.json", state: .failed, reason: "HTTP 500")
            let excluded = try sampleFile("a/video.mp4", state: .excluded, reason: "matches --exclude")
            let sharedBody = sampleBody(count: 600, seed: 95)
            try await store.put(sampleBody(count: 100, seed: 96), at: inB.url, kind: .precached)
            try await store.put(sampleBody(count: 200, seed: 97), at: page.url, kind: .precached)
            let ownEntry = try await store.put(sharedBody, at: own.url, kind: .precached)
            try await store.put(sampleBody(count: 50, seed: 98), at: ownRuntime.url)
            // Not listed by any game: shares own.js's body, which must stay.
            try await store.put(sharedBody, at: "https://example.com/elsewhere")

            let gameA = sampleGame("a", listOrder: 0)
            let gameB = sampleGame("b", listOrder: 1)
            _ = try await store.saveGame(gameA, files: [inB, page, own, ownRuntime, excluded, own])
            _ = try await store.saveGame(gameB, files: [inB])
            try await store.savePages([
                PrecachePageRecord(key: page.key, url: page.url, state: .cached, lastRun: Date())
            ])

            #expect(try await store.purgeGame(slug: "a") == 2)
            #expect(try await store.entry(for: own.key) == nil)
            #expect(try await store.entry(for: ownRuntime.key) == nil)
            #expect(try await store.entry(for: inB.key) != nil)
            #expect(try await store.entry(for: page.key) != nil)
            #expect(FileManager.default.fileExists(atPath: ownEntry.bodyPath))
            #expect(try await store.body(at: "https://example.com/elsewhere") == sharedBody)

            var purged = gameA
            purged.state = .failed
            purged.filesCached = 0
            purged.bytes = 0
            purged.lastError = "purged"
            #expect(try await store.game(slug: "a") == purged)
            #expect(try await store.game(slug: "b") == gameB)
            #expect(
                try await store.gameFiles(slug: "a").map { [$0.url, $0.state.rawValue, $0.reason ?? "-"] }
                    == [inB, page, own, ownRuntime, excluded, own].map { [$0.url, "failed", "purged"] }
            )
            #expect(try await store.gameFiles(slug: "b") == [inB])
            #expect(try await store.totals() == expectedTotals(runtime: (1, 600), precached: (2, 300)))

            // Purging again removes nothing more; an unknown game is nil.
            #expect(try await store.purgeGame(slug: "a") == 0)
            #expect(try await store.purgeGame(slug: "missing") == nil)

            // A purged list protects nothing: purging game b removes the file it shared with game a.
            #expect(try await store.purgeGame(slug: "b") == 1)
            #expect(try await store.entry(for: inB.key) == nil)
            #expect(try await store.entry(for: page.key) != nil)
            try await expectCountersMatchTheEntries(store)
        }
    }

    @Test
    func pruningIgnoresTheFileListOfAPurgedGame() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let shared = try sampleFile("x/shared.js")
            try await store.put(sampleBody(count: 80, seed: 99), at: shared.url, kind: .precached)
            _ = try await store.saveGame(sampleGame("x"), files: [shared])
            _ = try await store.saveGame(sampleGame("y"), files: [shared])
            #expect(try await store.purgeGame(slug: "x") == 0)

            // Game y drops the file: game x's purged list does not keep it.
            let dropped = try await store.saveGame(sampleGame("y"), files: [])
            #expect(dropped == [shared.key])
            #expect(try await store.pruneUnlisted(dropped) == [shared.key])
            #expect(try await store.gameFiles(slug: "x").map(\.state) == [.failed])
        }
    }

    @Test
    func purgeGameDeletesABodyOnlyItUsed() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let files = try (0..<3).map { try sampleFile("solo/\($0).js") }
            var paths: [String] = []
            for (index, file) in files.enumerated() {
                paths.append(
                    try await store.put(
                        sampleBody(count: 100 + index, seed: UInt8(index)), at: file.url, kind: .precached
                    ).bodyPath)
            }
            _ = try await store.saveGame(sampleGame("solo"), files: files)
            #expect(try await store.purgeGame(slug: "solo") == 3)
            #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
            #expect(regularFiles(under: "\(directory)/bodies").isEmpty)
            #expect(try await store.totals() == .zero)
            #expect(try await store.game(slug: "solo")?.state == .failed)
        }
    }

    @Test
    func gameByRootIgnoresTrailingSlashesAndNormalisesTheURL() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            var flipart = sampleGame("flipart")
            flipart.root = "https://cdn.example/games/flipart"
            var tetra = sampleGame("tetra", listOrder: 1)
            tetra.root = "https://cdn.example/games/tetra/"
            _ = try await store.saveGame(flipart, files: [])
            _ = try await store.saveGame(tetra, files: [])

            for root in [
                "https://cdn.example/games/flipart", "https://cdn.example/games/flipart/",
                "HTTPS://CDN.example:443/games/./flipart//", " https://cdn.example/games/flip%61rt ",
            ] {
                #expect(try await store.game(root: root) == flipart, "root \(root.debugDescription)")
            }
            #expect(try await store.game(root: "https://cdn.example/games/tetra") == tetra)
            #expect(try await store.game(root: "https://cdn.example/games/tetra/") == tetra)
            #expect(try await store.game(root: "https://cdn.example/games/FLIPART") == nil)
            #expect(try await store.game(root: "https://cdn.example/games") == nil)
            #expect(try await store.game(root: "not a url") == nil)
        }
    }
}
