import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// Replaces the record of `game` (by slug) and its whole file list, in one transaction; `files`
    /// are kept in the order given. Returns the keys the game listed before as cached that `files`
    /// no longer lists in any state: candidates for ``pruneUnlisted(_:)``.
    ///
    /// A file list equal to the stored one is left as it is: a re-run of an unchanged game writes
    /// one row, not one per file.
    public func saveGame(_ game: GameRecord, files: [GameFileRecord]) async throws -> Set<CacheKey> {
        try await self.pool.write { db in try Self.saveGame(db, game, files: files) }
    }

    /// A game's file list as stored, compared with a new one.
    struct StoredFileList {
        /// Whether the stored list is `files` exactly: keys, URLs, states, reasons and revisions, in order.
        var isSame: Bool
        /// The keys the stored list gives as cached.
        var cachedKeys: Set<String>
    }

    /// Reads the stored file list of `slug` and compares it with `files`.
    static func storedFileList(_ db: Database, slug: String, comparedWith files: [GameFileRecord]) throws -> StoredFileList {
        var cachedKeys: Set<String> = []
        var isSame = true
        var position = 0
        let stored = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT key, url, state, reason, revision FROM game_file WHERE game_slug = ? ORDER BY position"
            ),
            arguments: [slug]
        )
        while let row = try stored.next() {
            let key: String = row[0]
            let state: String = row[2]
            if state == ListedFileState.cached.rawValue {
                cachedKeys.insert(key)
            }
            if isSame, position < files.count {
                let file = files[position]
                isSame =
                    file.key.rawValue == key && file.url == row[1] as String && file.state.rawValue == state
                    && file.reason == row[3] as String? && file.revision == row[4] as String?
            } else {
                isSame = false
            }
            position += 1
        }
        return StoredFileList(isSame: isSame && position == files.count, cachedKeys: cachedKeys)
    }

    /// ``saveGame(_:files:)`` inside a write transaction; `stored` is the stored file list when the
    /// caller has read it already.
    static func saveGame(_ db: Database, _ game: GameRecord, files: [GameFileRecord], stored: StoredFileList? = nil) throws -> Set<CacheKey>
    {
        let stored = try stored ?? Self.storedFileList(db, slug: game.slug, comparedWith: files)

        try db.execute(
            sql: """
                INSERT INTO game (\(Self.gameColumns)) VALUES (\(Self.gamePlaceholders))
                ON CONFLICT(slug) DO UPDATE SET
                    root = excluded.root, manifest_url = excluded.manifest_url,
                    display_name = excluded.display_name, state = excluded.state,
                    files_listed = excluded.files_listed, files_cached = excluded.files_cached,
                    bytes = excluded.bytes, last_run = excluded.last_run, last_error = excluded.last_error,
                    manifest_revision = excluded.manifest_revision, list_order = excluded.list_order,
                    page_url = excluded.page_url
                """,
            arguments: Self.arguments(for: game)
        )
        if !stored.isSame {
            try db.execute(sql: "DELETE FROM game_file WHERE game_slug = ?", arguments: [game.slug])
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO game_file (game_slug, position, key, url, state, reason, revision)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            )
            for (position, file) in files.enumerated() {
                try insert.execute(arguments: [
                    game.slug, position, file.key.rawValue, file.url, file.state.rawValue, file.reason, file.revision,
                ])
            }
        }
        let listed = Set(files.map(\.key.rawValue))
        return Set(stored.cachedKeys.subtracting(listed).map { CacheKey(storedRawValue: $0) })
    }

    /// Records a game whose manifest could not be read, or says `skip: true`, keeping its file list:
    /// a failed manifest fetch must not make Larder forget or delete what it cached.
    ///
    /// A new game is recorded as given. For a recorded one, this sets the state, last error, last
    /// run, root, manifest URL and list order, and the display name when one is given; the file
    /// counts, bytes, manifest revision and page keep describing the kept file list. A failed state
    /// does not replace a complete version (``GameRecord/isComplete``): that game stays ready, its
    /// last error saying why it was not updated (``GameVersionOutcome/keptPrevious``). Returns the
    /// record as it now stands.
    @discardableResult
    public func saveGameKeepingFiles(_ game: GameRecord) async throws -> GameVersionOutcome {
        try await self.pool.write { db in
            var game = game
            let previous = try self.game(db, slug: game.slug)
            let keepsPrevious = game.state == .failed && previous?.isComplete == true
            if keepsPrevious {
                game.lastError = Self.notUpdated(game.lastError ?? "its manifest could not be used")
            }
            try db.execute(
                sql: """
                    INSERT INTO game (\(Self.gameColumns)) VALUES (\(Self.gamePlaceholders))
                    ON CONFLICT(slug) DO UPDATE SET
                        root = excluded.root, manifest_url = excluded.manifest_url,
                        display_name = COALESCE(excluded.display_name, display_name),
                        state = CASE WHEN ? THEN state ELSE excluded.state END,
                        last_run = excluded.last_run, last_error = excluded.last_error,
                        list_order = excluded.list_order
                    """,
                arguments: Self.arguments(for: game) + [keepsPrevious]
            )
            return GameVersionOutcome(
                keptPrevious: keepsPrevious, record: try self.game(db, slug: game.slug) ?? game, vanished: [], removed: [])
        }
    }

    /// The last error of a complete version kept because its update failed for `reason`.
    static func notUpdated(_ reason: String) -> String {
        "not updated, the previous version stays ready: \(reason)"
    }

    /// Records pages games.txt listed, replacing the record of each page already recorded (by key).
    public func savePages(_ pages: [PrecachePageRecord]) async throws {
        try await self.pool.write { db in
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO precache_page (key, url, state, reason, last_run) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET
                        url = excluded.url, state = excluded.state, reason = excluded.reason,
                        last_run = excluded.last_run
                    """
            )
            for page in pages {
                try upsert.execute(arguments: [
                    page.key.rawValue, page.url, page.state.rawValue, page.reason, page.lastRun.timeIntervalSince1970,
                ])
            }
        }
    }

    /// Every recorded game, by list order, then slug. A row that cannot be decoded is left out (logged).
    public func games() async throws -> [GameRecord] {
        try await self.pool.read { db in try self.games(db) }
    }

    /// ``games()`` inside a transaction.
    func games(_ db: Database) throws -> [GameRecord] {
        try Row.fetchAll(db, sql: "SELECT \(Self.gameColumns) FROM game ORDER BY list_order, slug")
            .compactMap { try self.decodeGame($0) }
    }

    /// The record of the game `slug`, or nil.
    public func game(slug: String) async throws -> GameRecord? {
        try await self.pool.read { db in try self.game(db, slug: slug) }
    }

    /// ``game(slug:)`` inside a transaction.
    func game(_ db: Database, slug: String) throws -> GameRecord? {
        try Row.fetchOne(db, sql: "SELECT \(Self.gameColumns) FROM game WHERE slug = ?", arguments: [slug])
            .flatMap { try self.decodeGame($0) }
    }

    /// The file list of the game `slug`, in the order it was saved (empty for an unknown game). A row
    /// that cannot be decoded is left out (logged).
    public func gameFiles(slug: String) async throws -> [GameFileRecord] {
        try await self.pool.read { db in try self.gameFiles(db, slug: slug) }
    }

    /// ``gameFiles(slug:)`` inside a transaction.
    func gameFiles(_ db: Database, slug: String) throws -> [GameFileRecord] {
        try Row.fetchAll(
            db,
            sql: "SELECT key, url, state, reason, revision FROM game_file WHERE game_slug = ? ORDER BY position",
            arguments: [slug]
        ).compactMap { row in
            let key: String = try row.decode(forColumn: "key")
            let stateName: String = try row.decode(forColumn: "state")
            guard let state = ListedFileState(rawValue: stateName) else {
                self.logger.error(
                    "Game file row has an unknown state; leaving it out",
                    metadata: ["game": "\(slug)", "key": "\(key)", "state": "\(stateName)"]
                )
                return nil
            }
            return GameFileRecord(
                key: CacheKey(storedRawValue: key),
                url: try row.decode(forColumn: "url"),
                state: state,
                reason: try row.decode(forColumn: "reason"),
                revision: try row.decode(forColumn: "revision")
            )
        }
    }

    /// Every recorded page, by key. A row that cannot be decoded is left out (logged).
    public func pages() async throws -> [PrecachePageRecord] {
        try await self.pool.read { db in try self.pages(db) }
    }

    /// ``pages()`` inside a transaction.
    func pages(_ db: Database) throws -> [PrecachePageRecord] {
        try Row.fetchAll(db, sql: "SELECT key, url, state, reason, last_run FROM precache_page ORDER BY key")
            .compactMap { row in
                let key: String = try row.decode(forColumn: "key")
                let stateName: String = try row.decode(forColumn: "state")
                guard let state = ListedFileState(rawValue: stateName) else {
                    self.logger.error(
                        "Page row has an unknown state; leaving it out",
                        metadata: ["key": "\(key)", "state": "\(stateName)"]
                    )
                    return nil
                }
                return PrecachePageRecord(
                    key: CacheKey(storedRawValue: key),
                    url: try row.decode(forColumn: "url"),
                    state: state,
                    reason: try row.decode(forColumn: "reason"),
                    lastRun: Date(timeIntervalSince1970: try row.decode(forColumn: "last_run"))
                )
            }
    }

    /// Removes the record of the game `slug` and its file list, in one transaction. Its entries stay:
    /// pass the keys it listed to ``pruneUnlisted(_:)`` to remove those nothing else lists. Returns
    /// whether the game was recorded.
    @discardableResult
    public func removeGame(slug: String) async throws -> Bool {
        try await self.pool.write { db in
            try db.execute(sql: "DELETE FROM game_file WHERE game_slug = ?", arguments: [slug])
            try db.execute(sql: "DELETE FROM game WHERE slug = ?", arguments: [slug])
            return db.changesCount > 0
        }
    }

    /// Of `candidates`, removes the entries that are precached and that no game file row (in any
    /// state, except failed as ``purgedReason`` by ``purgeGame(slug:)``), no page row and no series lists,
    /// deleting body files no entry references any more. Runtime entries are never removed here.
    /// Returns the removed keys.
    ///
    /// One write transaction per ``keysPerQuery`` candidates, holding both the listing check and the
    /// removal: a game or page that another process saves meanwhile is seen wholly or not at all.
    @discardableResult
    public func pruneUnlisted(_ candidates: Set<CacheKey>) async throws -> Set<CacheKey> {
        var removed = Set<CacheKey>()
        for batch in candidates.map(\.rawValue).sorted().batches(of: Self.keysPerQuery) {
            let keys = try await self.write { db, released in
                try self.deleteUnlisted(db, keys: batch, releasing: &released)
            }
            removed.formUnion(keys.map { CacheKey(storedRawValue: $0) })
        }
        return removed
    }

    /// ``pruneUnlisted(_:)`` for `keys` (at most ``keysPerQuery``) inside a ``write(releasingBodies:)``
    /// transaction; returns the removed keys.
    func deleteUnlisted(_ db: Database, keys: some Collection<String>, releasing released: inout Set<String>) throws -> Set<String> {
        let unlisted = try String.fetchAll(
            db,
            sql: """
                SELECT key FROM entry
                WHERE key IN (\(Self.parameters(count: keys.count))) AND kind = 'precached'
                    AND NOT EXISTS (
                        SELECT 1 FROM game_file WHERE game_file.key = entry.key
                            AND NOT (game_file.state = ? AND game_file.reason IS ?)
                    )
                    AND NOT EXISTS (SELECT 1 FROM precache_page WHERE precache_page.key = entry.key)
                    AND NOT EXISTS (SELECT 1 FROM series_day WHERE series_day.key = entry.key)
                    AND NOT EXISTS (SELECT 1 FROM series WHERE series.manifest_key = entry.key)
                """,
            arguments: StatementArguments(Array(keys)) + [ListedFileState.failed.rawValue, Self.purgedReason]
        )
        return try self.deleteEntries(db, keys: unlisted, releasing: &released)
    }

    /// The `game` table's columns, in the order of ``arguments(for:)``.
    private static let gameColumns = """
        slug, root, manifest_url, display_name, state, files_listed, files_cached, bytes, last_run, \
        last_error, manifest_revision, list_order, page_url
        """

    /// One `?` per column of ``gameColumns``.
    private static let gamePlaceholders = Store.parameters(count: 13)

    /// The values of `game`'s columns, in the order of ``gameColumns``.
    private static func arguments(for game: GameRecord) -> StatementArguments {
        [
            game.slug, game.root, game.manifestURL, game.displayName, game.state.rawValue, game.filesListed,
            game.filesCached, game.bytes, game.lastRun.timeIntervalSince1970, game.lastError, game.manifestRevision,
            game.listOrder, game.pageURL,
        ]
    }

    /// The game a row of ``gameColumns`` describes, or nil (logged) when its state is unknown.
    private func decodeGame(_ row: Row) throws -> GameRecord? {
        let slug: String = try row.decode(forColumn: "slug")
        let stateName: String = try row.decode(forColumn: "state")
        guard let state = GameState(rawValue: stateName) else {
            self.logger.error(
                "Game row has an unknown state; leaving it out",
                metadata: ["game": "\(slug)", "state": "\(stateName)"]
            )
            return nil
        }
        return GameRecord(
            slug: slug,
            root: try row.decode(forColumn: "root"),
            manifestURL: try row.decode(forColumn: "manifest_url"),
            displayName: try row.decode(forColumn: "display_name"),
            state: state,
            filesListed: try row.decode(forColumn: "files_listed"),
            filesCached: try row.decode(forColumn: "files_cached"),
            bytes: try row.decode(forColumn: "bytes"),
            lastRun: Date(timeIntervalSince1970: try row.decode(forColumn: "last_run")),
            lastError: try row.decode(forColumn: "last_error"),
            manifestRevision: try row.decode(forColumn: "manifest_revision"),
            listOrder: try row.decode(forColumn: "list_order"),
            pageURL: try row.decode(forColumn: "page_url")
        )
    }
}
