import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// Records when entries were last served, for least-recently-used eviction and the entry list.
    ///
    /// The proxy buffers hits and flushes them every few seconds, so serving never waits on a write.
    /// All of `uses` goes in one write transaction; keys without an entry are ignored, and a time
    /// never moves an entry's last use back (a late flush from another process loses to a newer one).
    public func recordUse(_ uses: [CacheKey: Date]) async throws {
        guard !uses.isEmpty else {
            return
        }
        try await self.pool.write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE entry SET last_used = MAX(last_used, :time) WHERE key = :key"
            )
            for (key, time) in uses {
                try statement.execute(arguments: ["key": key.rawValue, "time": time.timeIntervalSince1970])
            }
        }
    }
}
