import Foundation
import GRDB
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

    /// The rows of a game's file list as SQLite holds them, read through a second connection. Rows
    /// written again get new rowids as long as another game's rows hold the highest ones (SQLite
    /// gives a new row the highest rowid plus one).
    private func fileRowIDs(_ directory: String, slug: String) throws -> [Int64] {
        let queue = try DatabaseQueue(path: directory + "/index.sqlite")
        return try queue.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM game_file WHERE game_slug = ? ORDER BY position", arguments: [slug])
        }
    }

    @Test("an unchanged file list is not written again; a change in any field of any file is")
    func saveGameLeavesAnUnchangedListAlone() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let files = [
                try sampleFile("g/a.js"), try sampleFile("g/b.js", revision: "r1"),
                try sampleFile("g/c.js", state: .failed, reason: "timeout"),
            ]
            // Another game's list, written anew each time, so it holds the highest rowids.
            let others = [[try sampleFile("o/x.js")], [try sampleFile("o/y.js")]]
            var otherWrites = 0
            func writeOtherGame() async throws {
                otherWrites += 1
                _ = try await store.saveGame(sampleGame("o"), files: others[otherWrites % 2])
            }
            _ = try await store.saveGame(sampleGame("g"), files: files)
            let written = try self.fileRowIDs(directory, slug: "g")
            #expect(written.count == 3)

            var rerun = sampleGame("g")
            rerun.lastRun = Date(timeIntervalSince1970: 1_800_000_000)
            try await writeOtherGame()
            #expect(try await store.saveGame(rerun, files: files).isEmpty)
            #expect(try self.fileRowIDs(directory, slug: "g") == written, "the same list is left as it is")
            #expect(try await store.game(slug: "g") == rerun, "the game's own record is updated")

            var changes: [[GameFileRecord]] = []
            var revised = files
            revised[1].revision = "r2"
            changes.append(revised)
            var recovered = files
            recovered[2].state = .cached
            recovered[2].reason = nil
            changes.append(recovered)
            var reasoned = files
            reasoned[2].reason = "reset"
            changes.append(reasoned)
            changes.append([files[1], files[0], files[2]])
            changes.append(Array(files.prefix(2)))
            changes.append(files + [try sampleFile("g/d.js")])
            for changed in changes {
                let before = try self.fileRowIDs(directory, slug: "g")
                try await writeOtherGame()
                _ = try await store.saveGame(rerun, files: changed)
                #expect(try await store.gameFiles(slug: "g") == changed)
                #expect(try self.fileRowIDs(directory, slug: "g") != before)
            }
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
