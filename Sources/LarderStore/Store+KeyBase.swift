import GRDB
import LarderHTTP

extension Store {
    /// The stored responses whose keys have `base` (``CacheKey/base``: scheme, authority and path),
    /// whatever their query or variant, newest response first, at most `limit`. Entries whose body
    /// file is missing or has the wrong size are left out, as ``variants(of:)`` does.
    ///
    /// One range of the `entry_key_base` index, read in order and cut at `limit`, so it costs the
    /// same for any cache size, however many queries a path was stored under.
    public func entries(withBase base: Substring, limit: Int) async throws -> [CachedEntry] {
        let rows = try await self.pool.read { db in
            try IndexRow.fetchAll(
                db,
                where: "(\(StoreSchema.keyBase)) = ? ORDER BY response_time DESC LIMIT ?",
                arguments: [String(base), limit]
            )
        }
        return rows.compactMap { row in
            guard let entry = self.decode(row), (try? POSIXFile.regularFileSize(entry.bodyPath)) == entry.bodySize else {
                return nil
            }
            return entry
        }
    }
}
