import GRDB
import LarderHTTP

extension Store {
    /// Removes the runtime entries whose key starts with `prefix` (say one origin's,
    /// `https://admin.example/`) for which `isRemoved` holds, with body files nothing else
    /// references; precached entries stay. Returns how many were removed. What `isRemoved` looks
    /// for is the caller's rule: the store only walks the range.
    ///
    /// One write transaction per ``keysPerQuery`` rows of the range, read in key order from the
    /// key index, so it costs in proportion to the prefix's entries, never the whole cache.
    @discardableResult
    public func removeRuntimeEntries(withPrefix prefix: String, where isRemoved: @escaping @Sendable (CachedEntry) -> Bool)
        async throws -> Int
    {
        guard let last = prefix.unicodeScalars.last, let next = Unicode.Scalar(last.value + 1) else { return 0 }
        // Every key starting with the prefix sorts at or after it and before the prefix with its
        // last character replaced by the next one.
        let upperBound = String(prefix.unicodeScalars.dropLast()) + String(next)
        var after: String?
        var removed = 0
        while true {
            let start = after
            let (count, lastKey) = try await self.write { db, released -> (Int, String?) in
                let rows = try IndexRow.fetchAll(
                    db, where: "key \(start == nil ? ">=" : ">") ? AND key < ? AND kind = ? ORDER BY key LIMIT \(Self.keysPerQuery)",
                    arguments: [start ?? prefix, upperBound, EntryKind.runtime.rawValue])
                // A row that does not decode is left for `larder verify`, never judged.
                let keys = rows.compactMap { self.decode($0) }.filter(isRemoved).map(\.key.rawValue)
                let count = try self.deleteEntries(db, keys: keys, releasing: &released).count
                return (count, rows.count < Self.keysPerQuery ? nil : rows.last?.key)
            }
            removed += count
            guard let lastKey else { return removed }
            after = lastKey
        }
    }
}
