import Foundation
import LarderStore
import Testing

/// A game record with fixed values, varied by the arguments.
func sampleGame(
    _ slug: String,
    state: GameState = .ready,
    displayName: String? = nil,
    listOrder: Int = 0,
    lastRun: Date = Date(timeIntervalSince1970: 1_700_000_100.5),
    lastError: String? = nil
) -> GameRecord {
    GameRecord(
        slug: slug,
        root: "https://cdn.example/games/\(slug)",
        manifestURL: "https://cdn.example/games/\(slug)/offline.meta.json",
        displayName: displayName,
        state: state,
        filesListed: 4,
        filesCached: 2,
        bytes: 12_345,
        lastRun: lastRun,
        lastError: lastError,
        manifestRevision: "etag-\(slug)",
        listOrder: listOrder
    )
}

/// A game file record for `https://cdn.example/games/<path>`.
func sampleFile(
    _ path: String,
    state: ListedFileState = .cached,
    reason: String? = nil,
    revision: String? = nil
) throws -> GameFileRecord {
    let url = "https://cdn.example/games/\(path)"
    return GameFileRecord(key: try cacheKey(url), url: url, state: state, reason: reason, revision: revision)
}

struct PrecacheRecordTests {
    @Test
    func saveGameRoundTripsTheRecordAndTheFilesInOrder() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let game = sampleGame("flipart", displayName: "Flip Art", listOrder: 3, lastError: "1 file failed")
            let files = [
                try sampleFile("flipart/index.html"),
                try sampleFile("flipart/assets/z.js", revision: "abc123"),
                try sampleFile("flipart/assets/b.png", state: .failed, reason: "HTTP 404"),
                try sampleFile("flipart/video.mp4", state: .excluded, reason: "matches --exclude *.mp4"),
                try sampleFile("other/a.js", state: .refused, reason: "not below the game root"),
            ]
            #expect(try await store.saveGame(game, files: files).isEmpty)
            #expect(try await store.game(slug: "flipart") == game)
            #expect(try await store.gameFiles(slug: "flipart") == files)
            #expect(try await store.games() == [game])
            #expect(try await store.game(slug: "unknown") == nil)
            #expect(try await store.gameFiles(slug: "unknown").isEmpty)

            // Saved again: the record and the list are replaced, not appended to.
            var updated = game
            updated.displayName = nil
            updated.state = .partial
            updated.manifestRevision = nil
            updated.lastError = nil
            let reordered = [files[2], files[0]]
            _ = try await store.saveGame(updated, files: reordered)
            #expect(try await store.game(slug: "flipart") == updated)
            #expect(try await store.gameFiles(slug: "flipart") == reordered)
        }
    }

    @Test
    func saveGameReturnsTheCachedKeysTheListDropped() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let a = try sampleFile("g/a.js")
            let b = try sampleFile("g/b.js")
            let c = try sampleFile("g/c.js", state: .failed, reason: "timeout")
            let d = try sampleFile("g/d.js", state: .excluded)
            let e = try sampleFile("g/e.js")
            _ = try await store.saveGame(sampleGame("g"), files: [a, b, c, d])

            // a was cached and is gone; c and d were not cached, so dropping them drops nothing.
            var cNowCached = c
            cNowCached.state = .cached
            cNowCached.reason = nil
            #expect(try await store.saveGame(sampleGame("g"), files: [b, e, cNowCached]) == [a.key])

            // Still listed, but failed this time: not a candidate.
            var bFailed = b
            bFailed.state = .failed
            #expect(try await store.saveGame(sampleGame("g"), files: [bFailed, e, cNowCached]) == [])

            // Another game's list is its own.
            _ = try await store.saveGame(sampleGame("other"), files: [a])
            #expect(try await store.saveGame(sampleGame("g"), files: []) == [e.key, cNowCached.key])
            #expect(try await store.gameFiles(slug: "other") == [a])
        }
    }

    @Test
    func saveGameKeepingFilesUpdatesTheStateAndKeepsTheList() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let files = [try sampleFile("g/a.js"), try sampleFile("g/b.js", state: .failed, reason: "reset")]
            let saved = sampleGame("g", displayName: "Game", listOrder: 1)
            _ = try await store.saveGame(saved, files: files)

            var failed = sampleGame(
                "g",
                state: .failed,
                displayName: nil,
                listOrder: 7,
                lastRun: Date(timeIntervalSince1970: 1_800_000_000),
                lastError: "manifest: HTTP 503"
            )
            failed.filesListed = 0
            failed.filesCached = 0
            failed.bytes = 0
            failed.manifestRevision = nil
            failed.root = "https://mirror.example/games/g"
            failed.manifestURL = "https://mirror.example/games/g/offline.meta.json"
            try await store.saveGameKeepingFiles(failed)

            var expected = saved
            expected.state = .failed
            expected.lastError = "manifest: HTTP 503"
            expected.lastRun = Date(timeIntervalSince1970: 1_800_000_000)
            expected.listOrder = 7
            expected.root = "https://mirror.example/games/g"
            expected.manifestURL = "https://mirror.example/games/g/offline.meta.json"
            #expect(try await store.game(slug: "g") == expected)
            #expect(try await store.gameFiles(slug: "g") == files)

            // A display name, when given, replaces the old one.
            var skipped = failed
            skipped.state = .skipped
            skipped.displayName = "Game 2"
            try await store.saveGameKeepingFiles(skipped)
            #expect(try await store.game(slug: "g")?.displayName == "Game 2")
            #expect(try await store.game(slug: "g")?.state == .skipped)
            #expect(try await store.gameFiles(slug: "g") == files)

            // A game seen for the first time is recorded as given, with no files.
            let new = sampleGame("new", state: .failed, lastError: "manifest is not JSON")
            try await store.saveGameKeepingFiles(new)
            #expect(try await store.game(slug: "new") == new)
            #expect(try await store.gameFiles(slug: "new").isEmpty)
        }
    }

    @Test
    func gamesAreOrderedByListOrderThenSlug() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            for (slug, order) in [("b", 2), ("z", 0), ("a", 0), ("m", 1)] {
                _ = try await store.saveGame(sampleGame(slug, listOrder: order), files: [])
            }
            try await store.saveGameKeepingFiles(sampleGame("c", state: .skipped, listOrder: 1))
            #expect(try await store.games().map(\.slug) == ["a", "z", "c", "m", "b"])
        }
    }

    @Test
    func savePagesUpsertsByKey() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let first = Date(timeIntervalSince1970: 1_700_000_000)
            let second = Date(timeIntervalSince1970: 1_700_000_500.25)
            let home = PrecachePageRecord(
                key: try cacheKey("https://puzzmo.example/today.html"),
                url: "https://puzzmo.example/today.html",
                state: .cached,
                lastRun: first
            )
            let about = PrecachePageRecord(
                key: try cacheKey("https://puzzmo.example/about.html"),
                url: "https://puzzmo.example/about.html",
                state: .failed,
                reason: "connection refused",
                lastRun: first
            )
            try await store.savePages([home, about])
            #expect(try await store.pages() == [about, home])

            var aboutAgain = about
            aboutAgain.state = .cached
            aboutAgain.reason = nil
            aboutAgain.lastRun = second
            let help = PrecachePageRecord(
                key: try cacheKey("https://puzzmo.example/help.html"),
                url: "https://puzzmo.example/help.html#top",
                state: .refused,
                reason: "another origin",
                lastRun: second
            )
            try await store.savePages([aboutAgain, help])
            #expect(try await store.pages() == [aboutAgain, help, home])
            try await store.savePages([])
            #expect(try await store.pages().count == 3)
        }
    }

    @Test
    func removeGameDropsTheRecordAndItsFilesButNotTheEntries() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let file = try sampleFile("g/a.js")
            try await store.put(Array("a".utf8), at: file.url, kind: .precached)
            _ = try await store.saveGame(sampleGame("g"), files: [file])
            _ = try await store.saveGame(sampleGame("h"), files: [try sampleFile("h/b.js")])

            #expect(try await store.removeGame(slug: "g"))
            #expect(try await store.game(slug: "g") == nil)
            #expect(try await store.gameFiles(slug: "g").isEmpty)
            #expect(try await store.games().map(\.slug) == ["h"])
            #expect(try await store.gameFiles(slug: "h").count == 1)
            #expect(try await store.entry(for: file.key)?.kind == .precached)
            #expect(try await store.removeGame(slug: "g") == false)

            // Saving it again after removal starts a fresh list: nothing was listed before.
            #expect(try await store.saveGame(sampleGame("g"), files: []).isEmpty)
        }
    }
}
