import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// Every stored response for `key`: the entry stored under the key itself and every variant
    /// (``CacheKey/variant(_:)``), newest first. Entries whose body file is missing or has the wrong
    /// size are left out, as ``entry(for:)`` does.
    ///
    /// One range scan of the key index on the calling thread (``lookupRead(_:)``), so it costs the
    /// same for any cache size; a key looked up before is answered from memory until a change is
    /// committed to the index, by this process or another (see ``EntryMemo``).
    public func variants(of key: CacheKey) async throws -> [CachedEntry] {
        // Monotonic: a clock stepped back must not extend how long a memo is trusted.
        let now = ProcessInfo.processInfo.systemUptime
        if let entries = self.memo.entries(for: key, now: now) {
            return entries
        }
        let stamp = self.memo.stamp
        let entries = try self.readVariants(of: key)
        // Misses are not remembered: what another process stores must be found at once.
        if !entries.isEmpty {
            self.memo.remember(entries, for: key, loadedAt: now, stamp: stamp)
        }
        return entries
    }

    /// What ``variants(of:)`` would answer from memory right now, without waiting; nil when it
    /// would have to read the index.
    public func rememberedVariants(of key: CacheKey) -> [CachedEntry]? {
        self.memo.entries(for: key, now: ProcessInfo.processInfo.systemUptime)
    }

    /// Like ``rememberedVariants(of:)``, with what a caller needs to keep something derived from
    /// the entries exactly as long as the lookup itself would be trusted (see ``holds(_:)``).
    public func rememberedLookup(of key: CacheKey) -> RememberedLookup? {
        self.memo.lookup(for: key, now: ProcessInfo.processInfo.systemUptime)
    }

    /// Whether a remembered lookup still holds: nothing was committed to the index since, by this
    /// process or another (``IndexChangeCounter``), and it is within its trust window.
    public func holds(_ validity: RememberedLookup.Validity) -> Bool {
        self.memo.holds(validity.stamp, trustedUntil: validity.trustedUntil, now: ProcessInfo.processInfo.systemUptime)
    }

    private func readVariants(of key: CacheKey) throws -> [CachedEntry] {
        let variants = key.variantKeys
        let rows = try self.lookupRead { db in
            try IndexRow.fetchAll(
                db,
                where: "key = ? OR (key >= ? AND key < ?)",
                arguments: [key.rawValue, variants.lowerBound, variants.upperBound]
            )
        }
        var entries: [CachedEntry] = []
        for row in rows {
            guard let entry = self.decode(row), try POSIXFile.regularFileSize(entry.bodyPath) == entry.bodySize else {
                continue
            }
            entries.append(entry)
        }
        return entries.sorted { $0.responseTime > $1.responseTime }
    }

    /// Replaces the stored headers and times of the entry under `key` after a `304 Not Modified`
    /// (RFC 9111 section 4.3.4), keeping its body. Returns the refreshed entry, or nil when the
    /// entry is gone or its body changed meanwhile (then nothing is written).
    ///
    /// - Parameters:
    ///   - bodyHash: the body the 304 validated; a concurrent writer may have replaced it.
    ///   - headers: the updated header list (already merged by the caller).
    public func refreshHead(
        key: CacheKey,
        bodyHash: String,
        headers: [HeaderField],
        requestTime: Date,
        responseTime: Date
    ) async throws -> CachedEntry? {
        let storable = HeaderField.storable(headers)
        let encoded = HeaderListCoding.encode(storable)
        let contentType = storable.first { $0.hasName("content-type") }?.value
        let row = try await self.pool.write { db -> IndexRow? in
            try db.execute(
                sql: """
                    UPDATE entry SET headers = ?, request_time = ?, response_time = ?, content_type = ?
                    WHERE key = ? AND body_hash = ?
                    """,
                arguments: [
                    encoded, requestTime.timeIntervalSince1970, responseTime.timeIntervalSince1970, contentType,
                    key.rawValue, bodyHash,
                ]
            )
            guard db.changesCount > 0 else { return nil }
            return try IndexRow.fetch(db, key: key.rawValue)
        }
        return row.flatMap { self.decode($0) }
    }
}
