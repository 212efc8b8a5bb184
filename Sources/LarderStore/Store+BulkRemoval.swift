import Foundation
import GRDB

extension Store {
    /// Removes every runtime entry (clear runtime entries); precached entries stay, and so do body
    /// files they still reference. Returns how many entries were removed.
    ///
    /// One write transaction per ``keysPerQuery`` entries, so a large cache is never held in memory
    /// and another process's writes are not kept waiting; each batch is read from the `kind` index.
    @discardableResult
    public func removeRuntimeEntries() async throws -> Int {
        var removed = 0
        while true {
            let count = try await self.write { db, released in
                let keys = try String.fetchAll(
                    db,
                    sql: "SELECT key FROM entry WHERE kind = ? LIMIT ?",
                    arguments: [EntryKind.runtime.rawValue, Self.keysPerQuery]
                )
                return try self.deleteEntries(db, keys: keys, releasing: &released).count
            }
            removed += count
            if count < Self.keysPerQuery {
                return removed
            }
        }
    }

    /// Removes every entry with its body file, and every game, game file, page record and staged
    /// body (purge everything). Returns how many entries were removed.
    ///
    /// Entries go in batches of ``keysPerQuery``, one write transaction each. The transaction that
    /// finds no entry left removes the records; then, in a transaction that finds no entry nor staged body still,
    /// every file left in `bodies/` (bodies a crash left without a row) is deleted: no other writer
    /// can be storing a body then, since bodies are moved into place under the index's write lock.
    @discardableResult
    public func removeAllEntries() async throws -> Int {
        var removed = 0
        while true {
            let count = try await self.write { db, released in
                let keys = try String.fetchAll(db, sql: "SELECT key FROM entry LIMIT ?", arguments: [Self.keysPerQuery])
                guard !keys.isEmpty else {
                    try db.execute(
                        sql: "DELETE FROM game_file; DELETE FROM game; DELETE FROM precache_page; DELETE FROM staged_entry;"
                            + " DELETE FROM series_day; DELETE FROM series;")
                    return 0
                }
                return try self.deleteEntries(db, keys: keys, releasing: &released).count
            }
            guard count > 0 else {
                break
            }
            removed += count
        }
        try await self.pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM entry) OR EXISTS(SELECT 1 FROM staged_entry)") == false {
                self.deleteAllBodyFiles()
            }
        }
        return removed
    }

    /// Deletes every body file in `bodies/` (files named like a body hash, in folders named like
    /// their first two digits). Runs inside a write transaction that found no entry; a file that
    /// cannot be deleted is only logged.
    private func deleteAllBodyFiles() {
        let folders: [String]
        do {
            folders = try FileManager.default.contentsOfDirectory(atPath: self.bodiesDirectory)
        } catch {
            self.logger.warning(
                "Cannot list the bodies folder",
                metadata: ["path": "\(self.bodiesDirectory)", "error": "\(error)"]
            )
            return
        }
        for folder in folders where folder.utf8.count == 2 {
            let folderPath = "\(self.bodiesDirectory)/\(folder)"
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folderPath) else {
                continue
            }
            for name in names where Self.isSHA256Hex(name) && name.hasPrefix(folder) {
                do {
                    try POSIXFile.removeFile("\(folderPath)/\(name)")
                } catch {
                    self.logger.warning(
                        "Cannot delete a body file",
                        metadata: ["path": "\(folderPath)/\(name)", "error": "\(error)"]
                    )
                }
            }
        }
    }
}
