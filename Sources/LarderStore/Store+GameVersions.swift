import Foundation
import GRDB
import LarderHTTP

/// What ``Store/saveGameVersion(_:files:installing:)`` did.
public struct GameVersionOutcome: Sendable, Hashable {
    /// Whether the previous version stays: the new one was not complete and the previous one was
    /// (``GameRecord/isComplete``). Only the game's last run and last error changed; the new
    /// version's staged bodies wait for a later run.
    public var keptPrevious: Bool
    /// The game's record as it now stands (the previous one when it was kept).
    public var record: GameRecord
    /// Files given as cached that were neither staged nor stored any more (removed meanwhile, by a
    /// purge say); they count as failed, with reason ``Store/vanishedReason``.
    public var vanished: [GameFileRecord]
    /// The precached entries the previous version listed that nothing lists any more, removed with
    /// the switch.
    public var removed: Set<CacheKey>

    /// Creates an outcome.
    public init(keptPrevious: Bool, record: GameRecord, vanished: [GameFileRecord] = [], removed: Set<CacheKey> = []) {
        self.keptPrevious = keptPrevious
        self.record = record
        self.vanished = vanished
        self.removed = removed
    }
}

/// Game versions: a precache run stages the bodies of a game's new version (``BodyWriter/stage(key:head:expectedLength:revision:expectedHash:)``)
/// and switches to it in one transaction once it is complete, so the previous version is served,
/// whole, until then. Staged bodies are never served; their rows live in `staged_entry`, which has
/// the columns of `entry`, keyed by cache key (a body two games list is staged once).
extension Store {
    /// The reason a file gets when it was staged or stored at plan time but is gone at the switch.
    public static let vanishedReason = "no longer in the cache (removed while precaching)"

    /// Saves a game's new version: its record and file list (`files`, in order), installing the
    /// staged bodies of `staged` (and of any of its keys that has a staged row: the manifest, say)
    /// as precached entries, pinning the other cached files' entries (kind precached, their
    /// revision), and removing the precached entries the previous version listed that no game file
    /// and no page lists any more. One write transaction: another process (a proxy serving the
    /// game) sees the previous version or the new one, never a mix. Replaced bodies are deleted once
    /// it has committed, if nothing references them.
    ///
    /// It is the version's one durability barrier: the staged bodies not durable yet (staged
    /// without a barrier of their own) are flushed, contents then each of their folders once,
    /// before the transaction; when that fails, this throws and nothing changes.
    ///
    /// When the new version is not complete (a file failed, or vanished) and the recorded one is
    /// (``GameRecord/isComplete``), nothing switches: the previous version stays ready and served,
    /// its record keeping everything but `lastRun` and `lastError` (saying why it was not updated),
    /// and the staged bodies stay for the next run.
    ///
    /// `game`'s `bytes` is recomputed from the bodies, and a cached file found neither staged nor
    /// stored is recorded as failed (``GameVersionOutcome/vanished``), the state and counts following.
    ///
    /// `replaces`, when given, is asked in the same transaction about the record stored now (nil
    /// without one): when it answers false nothing is written and the outcome keeps the stored
    /// record (a pack import checking that no newer version arrived meanwhile).
    public func saveGameVersion(
        _ game: GameRecord,
        files: [GameFileRecord],
        installing staged: Set<CacheKey>,
        replaces: (@Sendable (GameRecord?) -> Bool)? = nil
    ) async throws -> GameVersionOutcome {
        // The version's one barrier, before its transaction (the write lock is not held while the
        // disk works).
        let flushed = try await self.flushStaged(staged)
        return try await self.write { db, released in
            if let replaces {
                let stored = try self.game(db, slug: game.slug)
                if !replaces(stored) {
                    return GameVersionOutcome(keptPrevious: true, record: stored ?? game)
                }
            }
            // A row staged again since the barrier (by a run beside this one) is not covered by it:
            // not installed, as if it had not been staged.
            var staged = staged
            for batch in staged.map(\.rawValue).sorted().batches(of: Self.keysPerQuery) {
                for (key, hash) in try Self.stagedNotDurable(db, keys: batch) where flushed[key] != hash {
                    staged.remove(CacheKey(storedRawValue: key))
                }
            }
            var game = game
            var files = files
            var vanished: [GameFileRecord] = []
            let cachedKeys = files.filter { $0.state == .cached }.map(\.key)
            let storedList = try Self.storedFileList(db, slug: game.slug, comparedWith: files)
            // The same list again (a re-run that found everything cached), with every cached file
            // still stored and none installed now: checked and pinned through the stored list, a
            // statement each, rather than naming every key.
            var bytesThroughStoredList: Int64?
            if storedList.isSame, !cachedKeys.contains(where: staged.contains) {
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*), COALESCE(SUM(entry.body_size), 0) FROM game_file JOIN entry ON entry.key = game_file.key
                        WHERE game_file.game_slug = ? AND game_file.state = 'cached'
                        """,
                    arguments: [game.slug]
                )
                if let row, row[0] as Int == cachedKeys.count {
                    bytesThroughStoredList = row[1]
                }
            }
            if let bytes = bytesThroughStoredList {
                game.bytes = bytes
            } else {
                game.bytes = 0
                let stagedSizes = try Self.bodySizes(db, table: "staged_entry", keys: cachedKeys.filter(staged.contains).map(\.rawValue))
                let storedSizes = try Self.bodySizes(db, table: "entry", keys: cachedKeys.map(\.rawValue).filter { stagedSizes[$0] == nil })
                for index in files.indices where files[index].state == .cached {
                    let key = files[index].key.rawValue
                    if let size = stagedSizes[key] ?? storedSizes[key] {
                        game.bytes += size
                        continue
                    }
                    files[index].state = .failed
                    files[index].reason = Self.vanishedReason
                    vanished.append(files[index])
                }
            }
            if let first = vanished.first {
                game.filesCached = max(0, game.filesCached - vanished.count)
                game.state = game.filesCached == 0 ? .failed : .partial
                game.lastError = game.lastError ?? "\(first.url): \(Self.vanishedReason)"
            }

            if !game.isComplete, var previous = try self.game(db, slug: game.slug), previous.isComplete {
                previous.lastRun = game.lastRun
                previous.lastError = Self.notUpdated(
                    "its new version has \(game.filesCached) of \(game.filesListed) files cached"
                        + (game.lastError.map { "; \($0)" } ?? ""))
                try db.execute(
                    sql: "UPDATE game SET last_run = ?, last_error = ? WHERE slug = ?",
                    arguments: [previous.lastRun.timeIntervalSince1970, previous.lastError, game.slug]
                )
                // The staged bodies wait for a later run, as durable as installed ones would be.
                for (key, hash) in flushed where staged.contains(CacheKey(storedRawValue: key)) {
                    try db.execute(
                        sql: "UPDATE staged_entry SET durable = 1 WHERE key = ? AND body_hash = ?", arguments: [key, hash])
                }
                return GameVersionOutcome(keptPrevious: true, record: previous, vanished: vanished, removed: [])
            }

            let now = Date().timeIntervalSince1970
            var installed = Set<String>()
            for batch in staged.map(\.rawValue).sorted().batches(of: Self.keysPerQuery) {
                installed.formUnion(try Self.installStaged(db, keys: batch, at: now, releasing: &released))
            }
            if bytesThroughStoredList != nil {
                _ = try Self.pin(
                    db, wanted: "SELECT key AS column1, revision AS column2 FROM game_file WHERE game_slug = ? AND state = 'cached'",
                    arguments: [game.slug])
            } else {
                let pins = files.filter { $0.state == .cached && !installed.contains($0.key.rawValue) }.map {
                    (key: $0.key.rawValue, revision: $0.revision)
                }
                for batch in pins.batches(of: Self.keysPerQuery) {
                    _ = try Self.pin(db, batch)
                }
            }
            // A vanished file changed the list after it was compared.
            let dropped = try Self.saveGame(db, game, files: files, stored: vanished.isEmpty ? storedList : nil)
            if bytesThroughStoredList == nil {
                try Self.removeRuntimeCopies(db, slug: game.slug, releasing: &released)
            }
            var removed = Set<CacheKey>()
            for batch in dropped.map(\.rawValue).sorted().batches(of: Self.keysPerQuery) {
                removed.formUnion(try self.deleteUnlisted(db, keys: batch, releasing: &released).map { CacheKey(storedRawValue: $0) })
            }
            return GameVersionOutcome(keptPrevious: false, record: game, vanished: vanished, removed: removed)
        }
    }

    /// Removes the runtime variants and partial entries stored beside the files of `slug`'s version
    /// (a page a browser fetched with its cookies, a range of an older deploy), so that from the
    /// switch on the version alone answers for its files: the owner's own answer is otherwise
    /// chosen before a shared one. Two statements, an index probe per file.
    private static func removeRuntimeCopies(_ db: Database, slug: String, releasing released: inout Set<String>) throws {
        // Each file's variant keys (`CacheKey.variantKeys`), joined in SQL from the suffixes.
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT entry.key, entry.body_hash FROM game_file JOIN entry
                    ON entry.key >= game_file.key || ?2 AND entry.key < game_file.key || ?3
                WHERE game_file.game_slug = ?1 AND game_file.state = 'cached' AND entry.kind = 'runtime'
                UNION ALL
                SELECT entry.key, entry.body_hash FROM game_file JOIN entry ON entry.key = game_file.key || ?4
                WHERE game_file.game_slug = ?1 AND game_file.state = 'cached' AND entry.kind = 'runtime'
                """,
            arguments: [slug, CacheKey.variantKeySuffixes.lowerBound, CacheKey.variantKeySuffixes.upperBound, CacheKey.partialSuffix]
        )
        for batch in rows.batches(of: Self.keysPerQuery) {
            let keys = batch.map { $0[0] as String }
            try db.execute(
                sql: "DELETE FROM entry WHERE key IN (\(Self.parameters(count: keys.count)))", arguments: StatementArguments(keys))
            released.formUnion(batch.map { $0[1] as String })
        }
    }

    /// The barrier of a game version (docs/FORMATS.md, "Crash safety"): the bodies staged for `keys`
    /// without one are flushed, contents then their folders (each once). Returns the hash of each
    /// key whose body it covered; a staged row whose body file is missing is left out. A store that
    /// takes no barriers (``takesBarriers``) flushes nothing and covers every such row.
    private func flushStaged(_ keys: Set<CacheKey>) async throws -> [String: String] {
        var pending: [String: String] = [:]
        for batch in keys.map(\.rawValue).sorted().batches(of: Self.keysPerQuery) {
            let rows = try await self.pool.read { db in try Self.stagedNotDurable(db, keys: batch) }
            pending.merge(rows) { $1 }
        }
        // Rows staged while the directory was on a disk, in one that now keeps nothing: nothing to
        // protect, so taken as they are.
        guard !pending.isEmpty, self.takesBarriers else { return pending }
        let paths = Set(pending.values.map { self.bodyPath(forHash: $0) }).sorted()
        let flushedPaths = try await POSIXFile.onSyncThread { [barrier] in try barrier.flushPlaced(paths) }
        return pending.filter { flushedPaths.contains(self.bodyPath(forHash: $0.value)) }
    }

    /// The body hash of each of `keys` staged and not durable yet, by key.
    private static func stagedNotDurable(_ db: Database, keys: ArraySlice<String>) throws -> [String: String] {
        var rows: [String: String] = [:]
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT key, body_hash FROM staged_entry WHERE durable = 0 AND key IN (\(Self.parameters(count: keys.count)))",
            arguments: StatementArguments(Array(keys)))
        while let row = try cursor.next() {
            rows[row[0]] = row[1]
        }
        return rows
    }

    /// What is staged for each of `keys` and can be installed: keys without a staged row, with a
    /// malformed one, or whose body file is missing or has another size are left out. `kind` is
    /// always precached (what installing makes it).
    ///
    /// The table is read whole when it holds no more rows than `keys` (it is near empty but for
    /// interrupted runs), else with one indexed query per ``keysPerQuery`` keys; then one `stat`
    /// per row found.
    public func stagedStates(for keys: [CacheKey]) async throws -> [CacheKey: StoredKeyState] {
        try await self.servableStates(in: "staged_entry", for: keys, usuallySmall: true)
    }

    /// Removes the staged bodies staged before `date` whose keys are not in `keeping`: what updates
    /// that never completed left (a precache run calls this at its end, keeping what its own games
    /// still wait for; bodies staged since it started belong to it or to a run beside it). Deletes
    /// body files nothing references any more. Returns how many were removed.
    @discardableResult
    public func removeStaged(stagedBefore date: Date, keeping: Set<CacheKey>) async throws -> Int {
        let old = try await self.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT key FROM staged_entry WHERE staged_at < ?",
                arguments: [date.timeIntervalSince1970]
            )
        }
        let abandoned = old.filter { !keeping.contains(CacheKey(storedRawValue: $0)) }
        var removed = 0
        for batch in abandoned.batches(of: Self.keysPerQuery) {
            removed += try await self.write { db, released in
                let placeholders = Self.parameters(count: batch.count)
                let arguments = StatementArguments(Array(batch)) + [date.timeIntervalSince1970]
                released.formUnion(
                    try String.fetchAll(
                        db,
                        sql: "SELECT body_hash FROM staged_entry WHERE key IN (\(placeholders)) AND staged_at < ?",
                        arguments: arguments
                    ))
                try db.execute(
                    sql: "DELETE FROM staged_entry WHERE key IN (\(placeholders)) AND staged_at < ?",
                    arguments: arguments
                )
                return db.changesCount
            }
        }
        return removed
    }

    /// Records a staged body's row, replacing the one staged under its key before (whose body is
    /// released), inside the install transaction; not durable until its version's switch, unless
    /// `durable` (a store that takes no barriers, ``takesBarriers``).
    static func upsertStaged(
        _ row: IndexRow, contentType: String?, durable: Bool, _ db: Database, releasing released: inout Set<String>
    ) throws {
        if let previous = try String.fetchOne(
            db.cachedStatement(sql: "SELECT body_hash FROM staged_entry WHERE key = ?"),
            arguments: [row.key]
        ), previous != row.bodyHash {
            released.insert(previous)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO staged_entry (\(Self.stagedColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET
                    url = excluded.url, status = excluded.status, headers = excluded.headers, vary = excluded.vary,
                    body_hash = excluded.body_hash, body_size = excluded.body_size,
                    request_time = excluded.request_time, response_time = excluded.response_time,
                    revision = excluded.revision, content_type = excluded.content_type, staged_at = excluded.staged_at,
                    durable = excluded.durable
                """
        ).execute(arguments: [
            row.key, row.url, row.status, row.headers, row.vary, row.bodyHash, row.bodySize, row.requestTime,
            row.responseTime, row.revision, contentType, row.storedAt, durable,
        ])
    }

    /// The columns of `staged_entry`, in the order ``upsertStaged(_:contentType:durable:_:releasing:)`` binds them.
    private static let stagedColumns = """
        key, url, status, headers, vary, body_hash, body_size, request_time, response_time, revision, content_type, \
        staged_at, durable
        """

    /// Moves the staged rows of `keys` into `entry` as precached entries stored at `now`, replacing
    /// the entries there (whose bodies are released when they differ), a statement for all of them
    /// rather than four per key. Returns the keys that had a staged row.
    private static func installStaged(
        _ db: Database, keys: ArraySlice<String>, at now: Double, releasing released: inout Set<String>
    ) throws -> [String] {
        let placeholders = Self.parameters(count: keys.count)
        let arguments = StatementArguments(Array(keys))
        let installed = try String.fetchAll(db, sql: "SELECT key FROM staged_entry WHERE key IN (\(placeholders))", arguments: arguments)
        guard !installed.isEmpty else { return [] }
        released.formUnion(
            try String.fetchAll(
                db,
                sql: """
                    SELECT entry.body_hash FROM staged_entry JOIN entry ON entry.key = staged_entry.key
                    WHERE staged_entry.key IN (\(placeholders)) AND entry.body_hash != staged_entry.body_hash
                    """,
                arguments: arguments
            ))
        try db.execute(
            sql: """
                INSERT INTO entry (\(IndexRow.columns), last_used, content_type)
                SELECT key, url, status, headers, vary, ?, body_hash, body_size, request_time, response_time, ?, revision, ?,
                    content_type
                FROM staged_entry WHERE key IN (\(placeholders)) ORDER BY key
                \(IndexRow.replacingEveryColumn)
                """,
            arguments: [EntryKind.precached.rawValue, now, now] + arguments
        )
        try db.execute(sql: "DELETE FROM staged_entry WHERE key IN (\(placeholders))", arguments: arguments)
        return installed
    }

    /// The body size of the row of `key` in `table` (`entry` or `staged_entry`), or nil without one.
    /// The body sizes of the rows of `keys` in `table` (`entry` or `staged_entry`), by key: one
    /// indexed query per ``keysPerQuery`` keys.
    private static func bodySizes(_ db: Database, table: String, keys: [String]) throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for batch in keys.batches(of: Self.keysPerQuery) {
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT key, body_size FROM \(table) WHERE key IN (\(Self.parameters(count: batch.count)))",
                arguments: StatementArguments(Array(batch))
            )
            while let row = try rows.next() {
                sizes[row[0]] = row[1]
            }
        }
        return sizes
    }
}
