import GRDB

/// One `entry` row as stored, before its JSON columns are decoded.
struct IndexRow: Sendable {
    var key: String
    var url: String
    var status: Int
    var headers: String
    var vary: String
    var kind: String
    var bodyHash: String
    var bodySize: Int64
    var requestTime: Double
    var responseTime: Double
    var storedAt: Double
    var revision: String?

    static let columns =
        "key, url, status, headers, vary, kind, body_hash, body_size, request_time, response_time, stored_at, revision"

    /// The row for `key` (an indexed lookup on the UNIQUE key column), or nil.
    static func fetch(_ db: Database, key: String) throws -> IndexRow? {
        // Cached statements: preparing one again costs more than running it (GRDB inspects every
        // statement it compiles, triggers included).
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.columns) FROM entry WHERE key = ?"), arguments: [key])
        else {
            return nil
        }
        return try IndexRow(row)
    }

    /// The rows matching an SQL condition on the `entry` table.
    static func fetchAll(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [IndexRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.columns) FROM entry WHERE \(condition)"), arguments: arguments)
            .map { try IndexRow($0) }
    }

    /// The upsert clause of an `INSERT INTO entry (columns, last_used, content_type)`: a row
    /// already stored under the key has every column replaced.
    static let replacingEveryColumn = """
        ON CONFLICT(key) DO UPDATE SET
            url = excluded.url, status = excluded.status, headers = excluded.headers,
            vary = excluded.vary, kind = excluded.kind, body_hash = excluded.body_hash,
            body_size = excluded.body_size, request_time = excluded.request_time,
            response_time = excluded.response_time, stored_at = excluded.stored_at,
            revision = excluded.revision, last_used = excluded.last_used, content_type = excluded.content_type
        """

    /// Inserts the row, or replaces every column of the row already stored under its key.
    func upsert(_ db: Database, contentType: String?) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO entry (\(Self.columns), last_used, content_type)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                \(Self.replacingEveryColumn)
                """
        ).execute(
            arguments: [
                self.key, self.url, self.status, self.headers, self.vary, self.kind, self.bodyHash,
                self.bodySize, self.requestTime, self.responseTime, self.storedAt, self.revision, self.storedAt,
                contentType,
            ]
        )
    }
}

extension IndexRow {
    /// Decodes a row selected with ``IndexRow/columns``.
    fileprivate init(_ row: Row) throws {
        self.init(
            key: try row.decode(forColumn: "key"),
            url: try row.decode(forColumn: "url"),
            status: try row.decode(forColumn: "status"),
            headers: try row.decode(forColumn: "headers"),
            vary: try row.decode(forColumn: "vary"),
            kind: try row.decode(forColumn: "kind"),
            bodyHash: try row.decode(forColumn: "body_hash"),
            bodySize: try row.decode(forColumn: "body_size"),
            requestTime: try row.decode(forColumn: "request_time"),
            responseTime: try row.decode(forColumn: "response_time"),
            storedAt: try row.decode(forColumn: "stored_at"),
            revision: try row.decode(forColumn: "revision")
        )
    }
}
