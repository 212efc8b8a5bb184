import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// The reason and last error a purged game's records give.
    public static let purgedReason = "purged"

    /// Purges the game `slug`: removes the entries its file list names (in any state, of any kind)
    /// that no other game's file list and no page record names, deleting body files nothing else
    /// references; marks every file of its list failed with reason ``purgedReason``; and records the
    /// game as failed, with no files cached, no bytes and last error ``purgedReason``, so it shows as
    /// not ready until it is precached again. Returns how many entries were removed, or nil when no
    /// game `slug` is recorded.
    ///
    /// A file row another purge left (failed, ``purgedReason``) does not count as naming its key,
    /// here or in ``pruneUnlisted(_:)``: purging two games that share a file removes it.
    ///
    /// One write transaction: another process sees the purge wholly or not at all.
    public func purgeGame(slug: String) async throws -> Int? {
        try await self.write { db, released in
            guard
                try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM game WHERE slug = ?)", arguments: [slug])
                    == true
            else {
                return nil
            }
            let keys = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT file.key FROM game_file AS file
                    WHERE file.game_slug = :slug
                        AND NOT EXISTS (
                            SELECT 1 FROM game_file AS other
                            WHERE other.key = file.key AND other.game_slug <> file.game_slug
                                AND NOT (other.state = :failed AND other.reason IS :purged)
                        )
                        AND NOT EXISTS (SELECT 1 FROM precache_page WHERE precache_page.key = file.key)
                        AND NOT EXISTS (SELECT 1 FROM series_day WHERE series_day.key = file.key)
                    """,
                arguments: ["slug": slug, "failed": ListedFileState.failed.rawValue, "purged": Self.purgedReason]
            )
            var removed = 0
            for batch in keys.batches(of: Self.keysPerQuery) {
                removed += try self.deleteEntries(db, keys: batch, releasing: &released).count
            }
            try db.execute(
                sql: "UPDATE game_file SET state = ?, reason = ? WHERE game_slug = ?",
                arguments: [ListedFileState.failed.rawValue, Self.purgedReason, slug]
            )
            try db.execute(
                sql: "UPDATE game SET state = ?, files_cached = 0, bytes = 0, last_error = ? WHERE slug = ?",
                arguments: [GameState.failed.rawValue, Self.purgedReason, slug]
            )
            return removed
        }
    }

    /// The recorded game whose root is `root` (as `larder purge --game ROOT` names it), or nil.
    ///
    /// Roots compare as cache keys (scheme and host case, default port, percent-escapes and dot
    /// segments normalised; every query parameter kept) with trailing slashes ignored. Reads every
    /// game record: there is one per games.txt line.
    public func game(root: String) async throws -> GameRecord? {
        let wanted = Self.comparableRoot(root)
        return try await self.games().first { Self.comparableRoot($0.root) == wanted }
    }

    /// `root` normalised as a cache key when it parses (as given otherwise), without trailing slashes.
    static func comparableRoot(_ root: String) -> String {
        let trimmed = root.trimmingCharacters(in: .whitespacesAndNewlines)
        var normalised = (try? CacheKey(url: trimmed, filter: .none).rawValue) ?? trimmed
        while normalised.hasSuffix("/") {
            normalised.removeLast()
        }
        return normalised
    }
}
