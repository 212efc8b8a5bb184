import Foundation
import GRDB

extension Store {
    /// Records `extra`, replacing the record of the same URL (its game and time).
    public func addExtraURL(_ extra: ExtraURLRecord) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO extra_url (url, game_slug, added_at) VALUES (?, ?, ?)
                    ON CONFLICT(url) DO UPDATE SET game_slug = excluded.game_slug, added_at = excluded.added_at
                    """,
                arguments: [extra.url, extra.gameSlug, extra.addedAt.timeIntervalSince1970]
            )
        }
    }

    /// Every extra URL, the first added first.
    public func extraURLs() async throws -> [ExtraURLRecord] {
        try await self.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT url, game_slug, added_at FROM extra_url ORDER BY added_at, url").map { row in
                ExtraURLRecord(
                    url: try row.decode(forColumn: "url"),
                    gameSlug: try row.decode(forColumn: "game_slug"),
                    addedAt: Date(timeIntervalSince1970: try row.decode(forColumn: "added_at"))
                )
            }
        }
    }

    /// Removes the extra URL `url` (what it cached stays until purged); returns whether it was recorded.
    @discardableResult
    public func removeExtraURL(_ url: String) async throws -> Bool {
        try await self.pool.write { db in
            try db.execute(sql: "DELETE FROM extra_url WHERE url = ?", arguments: [url])
            return db.changesCount > 0
        }
    }
}
