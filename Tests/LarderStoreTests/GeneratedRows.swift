@testable import LarderStore

/// Rows written straight into the index with one SQL statement (no body files), for tests that
/// need thousands of entries. Row `i` (from 0) has key and URL `<prefix><i>`, stored at
/// `1_700_000_000 + i` seconds, with the kind, body size and body hash that SQL expressions over
/// `i` give.
struct GeneratedRows {
    /// The key and URL prefix, e.g. `https://bulk.example/item/`.
    var prefix: String
    /// How many rows.
    var count: Int
    /// An SQL expression over `i` giving `'runtime'` or `'precached'`.
    var kindSQL = "'runtime'"
    /// An SQL expression over `i` giving the body size.
    var sizeSQL = "100"
    /// An SQL expression over `i` giving the 64-hex-digit body hash (distinct per row by default).
    var hashSQL = "printf('%064x', i)"

    /// The stored-at time of row `index`, as the rows are written.
    static func storedAt(_ index: Int) -> Double {
        1_700_000_000 + Double(index)
    }

    /// Writes the rows in one transaction.
    func insert(into store: Store) async throws {
        try await store.executeForTesting(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < \(self.count))
                INSERT INTO entry (key, url, status, headers, vary, kind, body_hash, body_size, request_time,
                    response_time, stored_at, last_used, content_type)
                SELECT '\(self.prefix)' || i, '\(self.prefix)' || i, 200, '[]', '[]', \(self.kindSQL),
                    \(self.hashSQL), \(self.sizeSQL), 1700000000, 1700000000, 1700000000 + i, 1700000000 + i,
                    'text/plain'
                FROM n
                """
        )
    }
}
