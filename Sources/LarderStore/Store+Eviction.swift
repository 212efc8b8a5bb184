import Foundation
import GRDB

extension Store {
    /// Removes runtime entries, least recently used first, until the entries' bytes (runtime and
    /// precached, from ``totals()``) fit within `budget`, or no runtime entry is left. Precached
    /// entries are never removed. Body files no entry references any more are deleted.
    ///
    /// One write transaction per batch of at most ``keysPerQuery`` entries, read in last-use order
    /// from the `(kind, last_used)` index, so another process's writes are not kept waiting and the
    /// cost grows with what is removed, not with the store.
    /// - Returns: how many entries were removed and the bytes their bodies counted.
    @discardableResult
    public func evictRuntime(toFitWithin budget: Int64) async throws -> (removed: Int, freedBytes: Int64) {
        var removed = 0
        var freed: Int64 = 0
        while true {
            let batch = try await self.write { db, released -> (removed: Int, freed: Int64, done: Bool) in
                let totals = try Self.readTotals(db)
                let excess = totals.bytes - budget
                guard excess > 0, totals.runtimeEntries > 0 else {
                    return (0, 0, true)
                }
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT key, body_size FROM entry WHERE kind = ? ORDER BY last_used, id LIMIT ?",
                    arguments: [EntryKind.runtime.rawValue, Self.keysPerQuery]
                )
                var keys: [String] = []
                var bytes: Int64 = 0
                for row in rows where bytes < excess {
                    keys.append(try row.decode(forColumn: "key"))
                    bytes += try row.decode(forColumn: "body_size")
                }
                let deleted = try self.deleteEntries(db, keys: keys, releasing: &released)
                return (deleted.count, bytes, bytes >= excess || rows.count < Self.keysPerQuery)
            }
            removed += batch.removed
            freed += batch.freed
            if batch.done || batch.removed == 0 {
                return (removed, freed)
            }
        }
    }
}
