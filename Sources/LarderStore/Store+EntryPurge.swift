import LarderHTTP
import LarderStore

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
    /// Reads every game's file list: a purge is a rare action, not a page view.
    public func purgeEntry(_ key: CacheKey) async throws -> EntryPurgeResult {
        let size = try await self.storedStates(for: [key])[key]?.bodySize ?? 0
        let removed = try await self.removeEntry(for: key)
        var affected: [String] = []
        for game in try await self.games() where game.state == .ready || game.state == .partial {
            var files = try await self.gameFiles(slug: game.slug)
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
            _ = try await self.saveGame(updated, files: files)
            affected.append(game.slug)
        }
        return EntryPurgeResult(removed: removed, gamesAffected: affected)
    }
}
