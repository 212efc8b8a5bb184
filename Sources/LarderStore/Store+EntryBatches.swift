import GRDB
import LarderHTTP

extension Store {
    /// How many keys one query names at most (well under SQLite's limit on bound parameters).
    static let keysPerQuery = 500

    /// `?, ?, ...`: `count` SQL parameters, for a statement naming a batch of keys.
    static func parameters(count: Int) -> String {
        count == 0 ? "" : String(repeating: "?, ", count: count - 1) + "?"
    }

    /// What the store holds for each of `keys` that it can serve: keys without an entry, with a
    /// malformed row, or whose body file is missing or has another size than the index says are left out.
    ///
    /// One indexed query per ``keysPerQuery`` keys, then one `stat` per entry found.
    public func storedStates(for keys: [CacheKey]) async throws -> [CacheKey: StoredKeyState] {
        try await self.servableStates(in: "entry", for: keys)
    }

    /// The servable states of the rows of `keys` in `table` (`entry` or `staged_entry`).
    ///
    /// `usuallySmall` says the table tends to hold far fewer rows than `keys` (`staged_entry`, empty
    /// but for interrupted runs): it is then read whole when it has no more rows than `keys`, a
    /// read bounded by the keys asked about, not by the table.
    func servableStates(in table: String, for keys: [CacheKey], usuallySmall: Bool = false) async throws -> [CacheKey: StoredKeyState] {
        let uniqueKeys = Set(keys.map(\.rawValue))
        var rows: [StoredRow] = []
        let whole =
            usuallySmall ? try await self.pool.read { db in try Self.storedRows(db, table: table, limit: uniqueKeys.count + 1) } : nil
        if let whole, whole.count <= uniqueKeys.count {
            rows = whole.filter { uniqueKeys.contains($0.key) }
        } else {
            for batch in Array(uniqueKeys).batches(of: Self.keysPerQuery) {
                rows += try await self.pool.read { db in try Self.storedRows(db, table: table, keys: Array(batch)) }
            }
        }
        var states: [CacheKey: StoredKeyState] = [:]
        states.reserveCapacity(rows.count)
        for row in rows {
            if let state = try self.servableState(row) {
                states[CacheKey(storedRawValue: row.key)] = state
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
        /// False for a staged row its version's barrier has not made durable yet.
        var isDurable: Bool
    }

    /// The rows of `keys` (at most ``keysPerQuery``) in `table` (`entry`, or `staged_entry`, whose
    /// rows are all precached), in one indexed query.
    static func storedRows(_ db: Database, table: String = "entry", keys: [String]) throws -> [StoredRow] {
        try Self.storedRows(
            db, table: table, where: "key IN (\(Self.parameters(count: keys.count)))", limit: "", arguments: StatementArguments(keys))
    }

    /// The first `limit` rows of `table`.
    static func storedRows(_ db: Database, table: String, limit: Int) throws -> [StoredRow] {
        try Self.storedRows(db, table: table, where: nil, limit: "LIMIT ?", arguments: [limit])
    }

    private static func storedRows(
        _ db: Database, table: String, where condition: String?, limit: String, arguments: StatementArguments
    ) throws -> [StoredRow] {
        let kind = table == "entry" ? "kind" : "'\(EntryKind.precached.rawValue)'"
        let durable = table == "entry" ? "1" : "durable"
        let clause = (condition.map { "WHERE \($0) " } ?? "") + limit
        // Columns by position: thousands of rows, and a lookup by name compares names for each.
        let rows = try Row.fetchCursor(
            db, sql: "SELECT key, \(kind), revision, body_hash, body_size, \(durable) FROM \(table) \(clause)", arguments: arguments)
        var stored: [StoredRow] = []
        while let row = try rows.next() {
            stored.append(
                StoredRow(key: row[0], kind: row[1], revision: row[2], bodyHash: row[3], bodySize: row[4], isDurable: row[5]))
        }
        return stored
    }

    /// The row's state when it can be served: nil for a malformed row (logged), or when its body
    /// file is missing or has another size than the index says (one `stat`). A staged row not
    /// durable yet (staged without its version's barrier, and found by a later run: its version's
    /// switch never came) is trusted only when its body hashes to its name; otherwise its body is
    /// fetched again (docs/FORMATS.md, "Crash safety").
    func servableState(_ row: StoredRow) throws -> StoredKeyState? {
        guard let kind = EntryKind(rawValue: row.kind), Self.isSHA256Hex(row.bodyHash) else {
            self.logger.error(
                "Index row is malformed; not counting it as stored",
                metadata: ["key": "\(row.key)"]
            )
            return nil
        }
        let path = self.bodyPath(forHash: row.bodyHash)
        guard try POSIXFile.regularFileSize(path) == row.bodySize else {
            return nil
        }
        guard row.isDurable || (try? BodyFileHash.sha256Hex(ofFileAt: path)) == row.bodyHash else {
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
            changed += try await self.pool.write { db in try Self.pin(db, updates) }
        }
        return changed
    }

    /// ``pin(_:revisions:)`` for at most ``keysPerQuery`` keys inside a write transaction, in one
    /// statement; returns how many entries changed. A nil revision keeps the stored one.
    static func pin(_ db: Database, _ updates: some Collection<(key: String, revision: String?)>) throws -> Int {
        guard !updates.isEmpty else {
            return 0
        }
        return try Self.pin(
            db,
            wanted: "VALUES \(String(repeating: "(?, ?), ", count: updates.count - 1))(?, ?)",
            arguments: StatementArguments(updates.flatMap { [$0.key, $0.revision] as [(any DatabaseValueConvertible)?] })
        )
    }

    /// Pins the entries that `wanted` names, a query bound to `arguments` whose rows are a key
    /// (`column1`) and a revision (`column2`): the one statement behind every pin. Returns how many
    /// entries changed.
    static func pin(_ db: Database, wanted: String, arguments: StatementArguments) throws -> Int {
        // The column names are those SQLite gives a VALUES list's columns.
        try db.execute(
            sql: """
                UPDATE entry SET kind = 'precached', revision = COALESCE(wanted.column2, entry.revision)
                FROM (\(wanted)) AS wanted
                WHERE entry.key = wanted.column1
                    AND (entry.kind <> 'precached' OR (wanted.column2 IS NOT NULL AND entry.revision IS NOT wanted.column2))
                """,
            arguments: arguments
        )
        return db.changesCount
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
        let placeholders = Self.parameters(count: keys.count)
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
