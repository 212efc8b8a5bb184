import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// Staged bodies and the one-transaction switch to a game's new version (`Store+GameVersions.swift`).
struct GameVersionTests {
    /// Stages `body` under `url`'s key, as a precache run does for a game's new version.
    private func stage(_ store: Store, _ body: [UInt8], at url: String, revision: String? = nil) async throws {
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: body)
        let size = try await writer.stage(
            key: try cacheKey(url), head: sampleHead(url: url), expectedLength: Int64(body.count), revision: revision)
        #expect(size == Int64(body.count))
    }

    /// Stages bodies of 10, 11 and 12 bytes under `a/1.js`, `a/2.js` and `a/3.js`; returns their keys.
    private func stageThree(_ store: Store) async throws -> [CacheKey] {
        let urls = ["https://cdn.example/a/1.js", "https://cdn.example/a/2.js", "https://cdn.example/a/3.js"]
        for (index, url) in urls.enumerated() {
            try await self.stage(store, sampleBody(count: 10 + index, seed: UInt8(index)), at: url)
        }
        return try urls.map(cacheKey)
    }

    /// A game with a complete version of `files`, all cached: what a finished run records.
    private func completeGame(_ slug: String, files: [GameFileRecord]) -> GameRecord {
        var game = sampleGame(slug)
        game.filesListed = files.count
        game.filesCached = files.count
        game.state = .ready
        return game
    }

    @Test
    func aStagedBodyIsNeverServedAndNeverTakenForAnOrphan() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            let old = sampleBody(count: 300, seed: 1)
            let new = sampleBody(count: 400, seed: 2)
            try await store.put(old, at: page.url, kind: .precached)
            // Another entry with the staged body: removing it must not take the staged body's file.
            try await store.put(new, at: "https://example.com/same-bytes")
            try await self.stage(store, new, at: page.url, revision: "r2")

            #expect(try await store.body(at: page.url) == old)
            #expect(
                try await store.stagedStates(for: [page.key]) == [page.key: StoredKeyState(kind: .precached, revision: "r2", bodySize: 400)]
            )
            #expect(try await store.removeEntry(for: try cacheKey("https://example.com/same-bytes")))
            #expect(try await store.stagedStates(for: [page.key]).count == 1, "its body file is still there")
            let verification = try await store.verifyEntries(repair: true)
            #expect(verification.problems.isEmpty, "\(verification.problems)")
            #expect(try await store.stagedStates(for: [page.key]).count == 1)
            // Staged bodies are not entries: totals count what is served.
            #expect(try await store.totals() == expectedTotals(runtime: (0, 0), precached: (1, 300)))
        }
    }

    @Test
    func aCompleteVersionSwitchesInOneGo() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            let kept = try sampleFile("a/keep.js")
            let dropped = try sampleFile("a/old.js")
            let added = try sampleFile("a/new.js")
            let browsed = try sampleFile("a/browsed.js", revision: "b1")
            let oldPage = try await store.put(sampleBody(count: 10, seed: 3), at: page.url, kind: .precached)
            try await store.put(sampleBody(count: 20, seed: 4), at: kept.url, kind: .precached)
            try await store.put(sampleBody(count: 30, seed: 5), at: dropped.url, kind: .precached)
            try await store.put(sampleBody(count: 40, seed: 6), at: browsed.url)
            let previous = [page, kept, dropped]
            _ = try await store.saveGame(self.completeGame("a", files: previous), files: previous)

            try await self.stage(store, sampleBody(count: 11, seed: 7), at: page.url)
            try await self.stage(store, sampleBody(count: 50, seed: 8), at: added.url)
            let files = [page, kept, added, browsed]
            var game = self.completeGame("a", files: files)
            game.pageURL = "https://games.example/play/a"
            let outcome = try await store.saveGameVersion(game, files: files, installing: [page.key, added.key])

            #expect(!outcome.keptPrevious)
            #expect(outcome.removed == [dropped.key])
            #expect(outcome.vanished.isEmpty)
            #expect(outcome.record.bytes == 11 + 20 + 50 + 40)
            #expect(try await store.game(slug: "a") == outcome.record)
            #expect(try await store.game(slug: "a")?.pageURL == "https://games.example/play/a")
            #expect(try await store.gameFiles(slug: "a") == files)
            #expect(try await store.body(at: page.url) == sampleBody(count: 11, seed: 7))
            #expect(try await store.body(at: added.url) == sampleBody(count: 50, seed: 8))
            #expect(try await store.entry(for: added.key)?.kind == .precached)
            let pinned = try await store.entry(for: browsed.key)
            #expect(pinned?.kind == .precached && pinned?.revision == "b1")
            #expect(try await store.entry(for: dropped.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: oldPage.bodyPath), "the replaced body is deleted")
            #expect(try await store.stagedStates(for: [page.key, added.key]).isEmpty)
            #expect(try await store.verifyEntries(repair: false).problems.isEmpty)
        }
    }

    @Test
    func anIncompleteVersionKeepsACompleteOneUntouched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            let dropped = try sampleFile("a/old.js")
            let missing = try sampleFile("a/new.js", state: .failed, reason: "answered HTTP 503")
            try await store.put(sampleBody(count: 10, seed: 3), at: page.url, kind: .precached)
            try await store.put(sampleBody(count: 30, seed: 5), at: dropped.url, kind: .precached)
            let previousGame = self.completeGame("a", files: [page, dropped])
            _ = try await store.saveGame(previousGame, files: [page, dropped])
            try await self.stage(store, sampleBody(count: 11, seed: 7), at: page.url)

            var game = sampleGame("a", state: .partial, lastRun: Date(timeIntervalSince1970: 1_800_000_000))
            game.filesListed = 2
            game.filesCached = 1
            game.lastError = "\(missing.url): answered HTTP 503"
            let outcome = try await store.saveGameVersion(game, files: [page, missing], installing: [page.key])

            #expect(outcome.keptPrevious)
            #expect(outcome.removed.isEmpty)
            var expected = previousGame
            expected.lastRun = Date(timeIntervalSince1970: 1_800_000_000)
            expected.lastError =
                "not updated, the previous version stays ready: its new version has 1 of 2 files cached; \(missing.url): answered HTTP 503"
            #expect(outcome.record == expected)
            #expect(try await store.game(slug: "a") == expected)
            #expect(try await store.gameFiles(slug: "a") == [page, dropped])
            #expect(try await store.body(at: page.url) == sampleBody(count: 10, seed: 3))
            #expect(try await store.entry(for: dropped.key) != nil)
            #expect(try await store.stagedStates(for: [page.key]).count == 1, "staged for the next run")
        }
    }

    @Test
    func anIncompleteVersionReplacesOneThatWasNotComplete() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let page = try sampleFile("a/index.html")
            let missing = try sampleFile("a/new.js", state: .failed, reason: "answered HTTP 503")
            var previous = sampleGame("a", state: .partial)
            previous.filesListed = 2
            previous.filesCached = 0
            _ = try await store.saveGame(previous, files: [try sampleFile("a/index.html", state: .failed), missing])
            try await self.stage(store, sampleBody(count: 11, seed: 7), at: page.url)

            var game = sampleGame("a", state: .partial)
            game.filesListed = 2
            game.filesCached = 1
            let outcome = try await store.saveGameVersion(game, files: [page, missing], installing: [page.key])
            #expect(!outcome.keptPrevious)
            #expect(try await store.game(slug: "a")?.state == .partial)
            #expect(try await store.body(at: page.url) == sampleBody(count: 11, seed: 7))
        }
    }

    @Test
    func aFileGoneByTheSwitchCountsAsFailed() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let here = try sampleFile("a/here.js")
            let gone = try sampleFile("a/gone.js")
            try await store.put(sampleBody(count: 10, seed: 3), at: here.url, kind: .precached)
            let outcome = try await store.saveGameVersion(
                self.completeGame("a", files: [here, gone]), files: [here, gone], installing: [gone.key])
            #expect(!outcome.keptPrevious)
            #expect(outcome.vanished.map(\.key) == [gone.key])
            #expect(outcome.record.state == .partial)
            #expect(outcome.record.filesCached == 1 && outcome.record.bytes == 10)
            #expect(outcome.record.lastError == "\(gone.url): \(Store.vanishedReason)")
            #expect(try await store.gameFiles(slug: "a").map(\.state) == [.cached, .failed])
        }
    }

    @Test
    func theSameVersionAgainIsCheckedAndPinnedThroughItsStoredList() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let first = try sampleFile("a/first.js", revision: "r1")
            let second = try sampleFile("a/second.js")
            try await store.put(sampleBody(count: 10, seed: 1), at: first.url)
            try await store.put(sampleBody(count: 20, seed: 2), at: second.url)
            let game = self.completeGame("a", files: [first, second])
            let saved = try await store.saveGameVersion(game, files: [first, second], installing: [])
            #expect(!saved.keptPrevious && saved.record.bytes == 30)

            // Unpinned behind the record's back, then the same version saved again (a re-run that
            // found everything cached): pinned again, with the listed revision.
            try await store.pool.write { db in
                try db.execute(sql: "UPDATE entry SET kind = 'runtime', revision = NULL WHERE key = ?", arguments: [first.key.rawValue])
            }
            let again = try await store.saveGameVersion(game, files: [first, second], installing: [])
            #expect(!again.keptPrevious && again.vanished.isEmpty)
            #expect(again.record.bytes == 30 && again.record.state == .ready)
            let pinned = try await store.entry(for: first.key)
            #expect(pinned?.kind == .precached && pinned?.revision == "r1")

            // A file removed since the list was stored: missing although the list is the same.
            #expect(try await store.removeEntries([second.key]) == 1)
            let third = try await store.saveGameVersion(game, files: [first, second], installing: [])
            #expect(third.vanished.map(\.key) == [second.key])
            #expect(third.keptPrevious, "the stored version was complete; the new one is not")
        }
    }

    @Test
    func stagedStatesFindTheirKeysWhetherFewOrManyAreStaged() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let keys = try await self.stageThree(store)
            // More rows staged than keys asked about (looked up by key), and fewer (read whole).
            #expect(
                try await store.stagedStates(for: [keys[1]]) == [keys[1]: StoredKeyState(kind: .precached, revision: nil, bodySize: 11)])
            let many = try (0..<10).map { try cacheKey("https://cdn.example/b/\($0).js") } + [keys[2], keys[0]]
            #expect(Set(try await store.stagedStates(for: many).keys) == [keys[0], keys[2]])
        }
    }

    @Test
    func removeStagedTakesOnlyOldBodiesNotKept() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let staged = try await self.stageThree(store)
            let cutoff = Date()
            try await Task.sleep(for: .milliseconds(5))
            let late = "https://cdn.example/a/late.js"
            try await self.stage(store, sampleBody(count: 99, seed: 9), at: late)
            let keys = staged + [try cacheKey(late)]

            #expect(try await store.removeStaged(stagedBefore: cutoff, keeping: [keys[1]]) == 2)
            #expect(Set(try await store.stagedStates(for: keys).keys) == [keys[1], keys[3]])
            let verification = try await store.verifyEntries(repair: false)
            #expect(verification.problems.isEmpty, "the removed bodies' files are deleted: \(verification.problems)")
        }
    }

    @Test
    func purgingEverythingRemovesStagedBodies() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(sampleBody(count: 10, seed: 1), at: "https://cdn.example/a/x.js", kind: .precached)
            try await self.stage(store, sampleBody(count: 20, seed: 2), at: "https://cdn.example/a/y.js")
            #expect(try await store.removeAllEntries() == 1)
            #expect(try await store.stagedStates(for: [try cacheKey("https://cdn.example/a/y.js")]).isEmpty)
            #expect(regularFiles(under: directory + "/bodies").isEmpty)
        }
    }

    @Test
    func aFailedManifestLeavesACompleteGameReady() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let file = try sampleFile("a/x.js")
            let complete = self.completeGame("a", files: [file])
            _ = try await store.saveGame(complete, files: [file])
            var failed = sampleGame("a", state: .failed, lastError: "https://cdn.example/games/a/offline.meta.json: connection refused")
            failed.filesListed = 0
            failed.filesCached = 0

            let outcome = try await store.saveGameKeepingFiles(failed)
            #expect(outcome.keptPrevious)
            #expect(outcome.record.state == .ready && outcome.record.isComplete)
            #expect(
                outcome.record.lastError
                    == "not updated, the previous version stays ready: https://cdn.example/games/a/offline.meta.json: connection refused")
            #expect(try await store.game(slug: "a") == outcome.record)
        }
    }

    @Test
    func anIndexLeftBySchemaV4GetsStagingAndGamePages() async throws {
        try await withTemporaryDirectory { directory in
            let old = try Store(directory: directory, migratingUpTo: "v4")
            _ = try await old.saveGameForV4(sampleGame("a"))
            try old.close()

            let store = try Store(directory: directory)
            defer { try? store.close() }
            #expect(try await store.game(slug: "a") == sampleGame("a"))
            #expect(try await store.game(slug: "a")?.pageURL == nil)
            try await self.stage(store, sampleBody(count: 5, seed: 1), at: "https://cdn.example/a/y.js")
            #expect(try await store.stagedStates(for: [try cacheKey("https://cdn.example/a/y.js")]).count == 1)
        }
    }
}

extension Store {
    /// Writes a game row with the columns schema v4 had.
    fileprivate func saveGameForV4(_ game: GameRecord) async throws {
        try await self.executeForTesting(
            sql: """
                INSERT INTO game (slug, root, manifest_url, display_name, state, files_listed, files_cached, bytes,
                    last_run, last_error, manifest_revision, list_order)
                VALUES ('\(game.slug)', '\(game.root)', '\(game.manifestURL)', NULL, '\(game.state.rawValue)',
                    \(game.filesListed), \(game.filesCached), \(game.bytes), \(game.lastRun.timeIntervalSince1970), NULL,
                    '\(game.manifestRevision ?? "")', \(game.listOrder))
                """
        )
    }
}
