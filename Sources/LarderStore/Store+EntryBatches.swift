import GRDB
import LarderHTTP

extension Store {
    /// How many keys one query names at most (well under SQLite's limit on bound parameters).
    static let keysPerQuery = 500

    /// What the store holds for each of `keys` that it can serve: keys without an entry, with a
    /// malformed row, or whose body file is missing or has another size than the index says are left out.
    ///
    /// One indexed query per ``keysPerQuery`` keys, then one `stat` per entry found.
    public func storedStates(for keys: [CacheKey]) async throws -> [CacheKey: StoredKeyState] {
        let uniqueKeys = Array(Set(keys.map(\.rawValue)))
        var states: [CacheKey: StoredKeyState] = [:]
        states.reserveCapacity(uniqueKeys.count)
        for batch in uniqueKeys.batches(of: Self.keysPerQuery) {
            let rows = try await self.pool.read { db in try Self.storedRows(db, keys: Array(batch)) }
            for row in rows {
                if let state = try self.servableState(row) {
                    states[CacheKey(storedRawValue: row.key)] = state
                }
            }
        }
        return states
    }

    /// What ``storedStates(for:)`` reads of an entry row.
    struct StoredRow: Sendable {
        var key: String
        var kind: String
        var revision: String?
        var bodyHash: String
        var bodySize: Int64
    }

    /// The rows of `keys` (at most ``keysPerQuery``), in one indexed query.
    static func storedRows(_ db: Database, keys: [String]) throws -> [StoredRow] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT key, kind, revision, body_hash, body_size FROM entry
                WHERE key IN (\(databaseQuestionMarks(count: keys.count)))
                """,
            arguments: StatementArguments(keys)
        ).map { row in
            StoredRow(
                key: try row.decode(String.self, forColumn: "key"),
                kind: try row.decode(String.self, forColumn: "kind"),
                revision: try row.decode(String?.self, forColumn: "revision"),
                bodyHash: try row.decode(String.self, forColumn: "body_hash"),
                bodySize: try row.decode(Int64.self, forColumn: "body_size")
            )
        }
    }

    /// The row's state when it can be served: nil for a malformed row (logged), or when its body
    /// file is missing or has another size than the index says (one `stat`).
    func servableState(_ row: StoredRow) throws -> StoredKeyState? {
        guard let kind = EntryKind(rawValue: row.kind), Self.isSHA256Hex(row.bodyHash) else {
            self.logger.error(
                "Index row is malformed; not counting it as stored",
                metadata: ["key": "\(row.key)"]
            )
            return nil
        }
        guard try POSIXFile.regularFileSize(self.bodyPath(forHash: row.bodyHash)) == row.bodySize else {
            return nil
        }
        return StoredKeyState(kind: kind, revision: row.revision, bodySize: row.bodySize)
    }

    /// Makes the entries of `keys` precached, so they are served cache-first and never evicted; an
    /// entry whose key is in `revisions` takes that revision, the others keep theirs. Keys without
    /// an entry are skipped. Returns how many entries changed (one already precached with the same
    /// revision does not count). One write transaction per ``keysPerQuery`` keys.
    @discardableResult
    public func pin(_ keys: [CacheKey], revisions: [CacheKey: String] = [:]) async throws -> Int {
        var changed = 0
        for batch in keys.batches(of: Self.keysPerQuery) {
            let updates = batch.map { (key: $0.rawValue, revision: revisions[$0]) }
            changed += try await self.pool.write { db in
                var changed = 0
                for update in updates where try Self.pin(db, key: update.key, revision: update.revision) {
                    changed += 1
                }
                return changed
            }
        }
        return changed
    }

    /// ``pin(_:revisions:)`` for one key inside a write transaction; returns whether the entry changed.
    static func pin(_ db: Database, key: String, revision: String?) throws -> Bool {
        try db.cachedStatement(
            sql: """
                UPDATE entry SET kind = 'precached', revision = COALESCE(:revision, revision)
                WHERE key = :key
                    AND (kind <> 'precached' OR (:revision IS NOT NULL AND revision IS NOT :revision))
                """
        ).execute(arguments: ["key": key, "revision": revision])
        return db.changesCount > 0
    }

    /// Removes the entries of `keys`, deleting each body file no entry references any more (as
    /// ``removeEntry(for:)`` does for one key). Keys without an entry are skipped. Returns how many
    /// entries were removed. One write transaction per ``keysPerQuery`` keys.
    @discardableResult
    public func removeEntries(_ keys: [CacheKey]) async throws -> Int {
        var removed = 0
        for batch in keys.map(\.rawValue).batches(of: Self.keysPerQuery) {
            removed += try await self.write { db, released in
                try self.deleteEntries(db, keys: batch, releasing: &released).count
            }
        }
        return removed
    }

    /// Deletes the rows of `keys` (at most ``keysPerQuery``) inside a ``write(releasingBodies:)``
    /// transaction, adding their body hashes to `released`; returns the keys that had a row.
    func deleteEntries(_ db: Database, keys: some Collection<String>, releasing released: inout Set<String>) throws -> Set<String> {
        guard !keys.isEmpty else {
            return []
        }
        let placeholders = databaseQuestionMarks(count: keys.count)
        let arguments = StatementArguments(keys)
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT key, body_hash FROM entry WHERE key IN (\(placeholders))",
            arguments: arguments
        )
        guard !rows.isEmpty else {
            return []
        }
        var removedKeys = Set<String>()
        for row in rows {
            removedKeys.insert(try row.decode(forColumn: "key"))
            released.insert(try row.decode(forColumn: "body_hash"))
        }
        try db.execute(sql: "DELETE FROM entry WHERE key IN (\(placeholders))", arguments: arguments)
        return removedKeys
    }
}
