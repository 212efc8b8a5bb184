import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// The largest page ``listEntries(matching:sort:page:pageSize:)`` returns.
    public static let maximumPageSize = 500
    /// The shortest search text, in characters (Unicode scalars), that is searched: the trigram
    /// index cannot answer shorter text without reading every entry.
    public static let minimumSearchLength = 3
    /// How many matches of a search are counted, sorted and paged at most: the most recently added
    /// ones (highest row id) when more match. This bounds the cost of any search page.
    public static let searchResultLimit = 2000

    /// The entry counts and body bytes, from counters that triggers keep in the same transaction as
    /// every entry change (whichever process writes), so this costs the same for any cache size.
    public func totals() async throws -> StoreTotals {
        try await self.pool.read { db in
            try Self.readTotals(db)
        }
    }

    /// Entries whose URL contains `query`, sorted by `sort`, one page at a time (`page` from 1).
    ///
    /// No page costs in proportion to the number of entries in the store:
    /// - Without a query (nil, empty or white space), ``EntryPage/total`` comes from the counters
    ///   and the rows from the sort order's index with `LIMIT`/`OFFSET`: the cost grows with the page
    ///   size and the offset, not the store.
    /// - A query is a substring of the entry URL, ignoring case. It is quoted as one phrase for the
    ///   trigram full-text index, so `"`, `*`, `AND`, `<script>` and the like are literal text. The
    ///   index gives the matches newest row first; at most ``searchResultLimit`` of them are counted,
    ///   then sorted and paged. When more match, ``EntryPage/isTotalExact`` is false and the pages hold
    ///   the most recently added ``searchResultLimit`` matches: the page should say that more match
    ///   and ask for a narrower search. Sorting every match of a broad search (or walking a sort
    ///   index until the page fills) would cost in proportion to the store.
    /// - A query shorter than ``minimumSearchLength`` characters is not searched: the page is empty
    ///   with ``EntryPage/isQueryTooShort`` set ("type at least 3 characters").
    ///
    /// A `page` below 1 is read as 1 and `pageSize` is clamped to 1...``maximumPageSize``; the
    /// returned page says what was applied. A page past the end is empty, with `hasMore` false.
    public func listEntries(matching query: String?, sort: EntrySort, page: Int, pageSize: Int) async throws
        -> EntryPage
    {
        let page = max(page, 1)
        let pageSize = min(max(pageSize, 1), Self.maximumPageSize)
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
        let search = EntrySearchText(query)

        if let search, !search.isLongEnoughForIndex {
            return EntryPage(
                entries: [],
                page: page,
                pageSize: pageSize,
                total: 0,
                hasMore: false,
                isQueryTooShort: true
            )
        }
        if search != nil {
            try await self.indexWaitingSearchText()
        }
        return try await self.pool.read { db in
            guard let search else {
                let total = try Self.readTotals(db).entries
                guard !overflow, offset < total else {
                    return EntryPage(entries: [], page: page, pageSize: pageSize, total: total, hasMore: false)
                }
                let rows = try self.fetchSummaries(
                    db,
                    sql: "SELECT \(Self.summaryColumns) FROM entry \(sort.orderBy) LIMIT ? OFFSET ?",
                    arguments: [pageSize + 1, offset]
                )
                return EntryPage(
                    entries: Array(rows.prefix(pageSize)),
                    page: page,
                    pageSize: pageSize,
                    total: total,
                    hasMore: rows.count > pageSize
                )
            }
            guard search.canMatchAURL else {
                return EntryPage(entries: [], page: page, pageSize: pageSize, total: 0, hasMore: false)
            }

            let phrase = search.fullTextPhrase
            let counted =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM (SELECT 1 FROM entry_search WHERE entry_search MATCH ? LIMIT ?)",
                    arguments: [phrase, Self.searchResultLimit + 1]
                ) ?? 0
            let total = min(counted, Self.searchResultLimit)
            let isTotalExact = counted <= Self.searchResultLimit
            guard !overflow, offset < total else {
                return EntryPage(
                    entries: [],
                    page: page,
                    pageSize: pageSize,
                    total: total,
                    hasMore: false,
                    isTotalExact: isTotalExact
                )
            }
            // The match subquery comes first (CROSS JOIN keeps it the outer loop): at most
            // searchResultLimit rows are looked up and sorted.
            let rows = try self.fetchSummaries(
                db,
                sql: """
                    SELECT \(Self.summaryColumns)
                    FROM (
                        SELECT rowid FROM entry_search WHERE entry_search MATCH ? ORDER BY rowid DESC LIMIT ?
                    ) AS matched
                    CROSS JOIN entry ON entry.id = matched.rowid
                    \(sort.orderBy) LIMIT ? OFFSET ?
                    """,
                arguments: [phrase, Self.searchResultLimit, pageSize, offset]
            )
            return EntryPage(
                entries: rows,
                page: page,
                pageSize: pageSize,
                total: total,
                hasMore: offset + pageSize < total,
                isTotalExact: isTotalExact
            )
        }
    }

    /// Indexes the search text of the entries added since the last search, which waits in
    /// `entry_search_pending` (the writes that add entries, a game version's switch among them,
    /// leave it there): a write transaction only when some wait.
    func indexWaitingSearchText() async throws {
        let waits = try await self.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM entry_search_pending)") ?? false
        }
        guard waits else { return }
        try await self.pool.write { db in try Self.indexWaitingSearchText(db) }
    }

    /// ``indexWaitingSearchText()`` in the caller's write transaction.
    static func indexWaitingSearchText(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO entry_search (rowid, url)
                    SELECT entry.id, entry.url FROM entry_search_pending JOIN entry ON entry.id = entry_search_pending.id;
                DELETE FROM entry_search_pending;
                """)
    }

    /// The totals counters, read in the caller's transaction.
    static func readTotals(_ db: Database) throws -> StoreTotals {
        try Self.totals(db, sql: "SELECT kind, entries, bytes FROM entry_totals")
    }

    /// The totals of `sql`'s rows, one per entry kind: its `kind`, `entries` and `bytes` (a kind
    /// this version does not know counts in the whole only).
    static func totals(_ db: Database, sql: String) throws -> StoreTotals {
        var totals = StoreTotals.zero
        for row in try Row.fetchAll(db, sql: sql) {
            let kind: String = try row.decode(forColumn: "kind")
            let entries: Int = try row.decode(forColumn: "entries")
            let bytes: Int64 = try row.decode(forColumn: "bytes")
            totals.entries += entries
            totals.bytes += bytes
            switch EntryKind(rawValue: kind) {
            case .runtime:
                totals.runtimeEntries += entries
                totals.runtimeBytes += bytes
            case .precached:
                totals.precachedEntries += entries
                totals.precachedBytes += bytes
            case nil:
                break
            }
        }
        return totals
    }

    /// The `entry` columns an ``EntrySummary`` is read from.
    private static let summaryColumns =
        "entry.key, entry.url, entry.status, entry.content_type, entry.body_size, entry.kind, entry.stored_at, entry.last_used"

    /// The summaries of the rows `sql` selects (``summaryColumns``); a malformed row is left out (logged).
    private func fetchSummaries(_ db: Database, sql: String, arguments: StatementArguments) throws -> [EntrySummary] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
            let key: String = try row.decode(forColumn: "key")
            let kindName: String = try row.decode(forColumn: "kind")
            guard let kind = EntryKind(rawValue: kindName) else {
                self.logger.error(
                    "Entry row has an unknown kind; leaving it out of the list",
                    metadata: ["key": "\(key)", "kind": "\(kindName)"]
                )
                return nil
            }
            return EntrySummary(
                key: CacheKey(storedRawValue: key),
                url: try row.decode(forColumn: "url"),
                status: try row.decode(forColumn: "status"),
                contentType: try row.decode(forColumn: "content_type"),
                bodySize: try row.decode(forColumn: "body_size"),
                kind: kind,
                storedAt: Date(timeIntervalSince1970: try row.decode(forColumn: "stored_at")),
                lastUsed: Date(timeIntervalSince1970: try row.decode(forColumn: "last_used"))
            )
        }
    }
}

extension EntrySort {
    /// The `ORDER BY` clause, which the indexes `entry_stored_at`, `entry_body_size` and the unique
    /// index on `key` answer without sorting (an index ends with the rowid, the tie-break).
    fileprivate var orderBy: String {
        switch self {
        case .recent:
            return "ORDER BY entry.stored_at DESC, entry.id DESC"
        case .size:
            return "ORDER BY entry.body_size DESC, entry.id DESC"
        case .url:
            return "ORDER BY entry.key ASC"
        }
    }
}
