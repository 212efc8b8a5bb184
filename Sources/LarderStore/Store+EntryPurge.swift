import GRDB
import LarderHTTP

/// What ``LarderStore/Store/purgeEntry(_:)`` did.
public struct EntryPurgeResult: Sendable, Hashable {
    /// Whether there was an entry to remove.
    public var removed: Bool
    /// The slugs of the games that listed it as cached and are no longer ready.
    public var gamesAffected: [String]
}

extension Store {
    /// Removes the entry for `key` (purge an entry, on /dev/offline or with `larder purge URL`) and
    /// keeps the game records truthful: a game that lists the file as cached gets that file marked
    /// failed with reason ``purgedReason`` and is recounted (partial, or failed when nothing is
    /// left), so it no longer shows as ready. Precaching the game again fetches the file.
    ///
    /// One write transaction: another process sees the purge wholly or not at all, and the body file
    /// goes only once it has committed. Only the file lists of games that list the key are read.
    public func purgeEntry(_ key: CacheKey) async throws -> EntryPurgeResult {
        try await self.write { db, released in
            let size = try Self.storedRows(db, keys: [key.rawValue]).first.flatMap { try self.servableState($0) }?.bodySize ?? 0
            let removed = try Self.removeEntry(db, key: key, keepingPrecached: false, releasing: &released)
            var affected: [String] = []
            // Only the games that list the file as cached (by the file-key index), in list order.
            let listing = try Set(
                String.fetchAll(
                    db,
                    sql: "SELECT DISTINCT game_slug FROM game_file WHERE key = ? AND state = ?",
                    arguments: [key.rawValue, ListedFileState.cached.rawValue]
                ))
            for game in try self.games(db) where listing.contains(game.slug) && (game.state == .ready || game.state == .partial) {
                var files = try self.gameFiles(db, slug: game.slug)
                var listed = false
                for index in files.indices where files[index].key == key && files[index].state == .cached {
                    files[index].state = .failed
                    files[index].reason = Self.purgedReason
                    listed = true
                }
                guard listed else { continue }
                var updated = game
                updated.filesCached = files.filter { $0.state == .cached }.count
                updated.bytes = max(0, game.bytes - size)
                updated.state = updated.filesCached == 0 ? .failed : .partial
                if updated.state == .failed {
                    updated.lastError = Self.purgedReason
                }
                _ = try Self.saveGame(db, updated, files: files)
                affected.append(game.slug)
            }
            return EntryPurgeResult(removed: removed, gamesAffected: affected)
        }
    }
}
