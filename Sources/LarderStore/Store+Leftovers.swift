import Foundation
import GRDB

/// What an interrupted run left in a cache directory: harmless files that take space but are
/// never served.
public struct StoreLeftovers: Sendable, Hashable {
    /// Paths of body files no entry references (renamed into place before a commit that never came,
    /// or released by a commit whose deletes a crash cut short).
    public var orphanBodies: [String] = []
    /// Paths of files in `tmp/` that no running writer holds (bodies of writers that crashed).
    public var temporaryFiles: [String] = []
    /// Paths of files in `queue/` no queued write names (a crash before the row's commit, or after
    /// its removal's commit).
    public var orphanQueuedBodies: [String] = []
    /// Queued writes whose body file is missing or of another size: dead-lettered, never dropped.
    public var queuedWritesWithoutBody: [Int64] = []

    /// No leftovers.
    public init() {}
}

extension Store {
    /// Deletes what interrupted runs left: temporary files no writer holds (always; `tmp/` holds
    /// only bodies being written), and, when a store on this directory was killed since the last
    /// such pass, body files no entry references. `larder serve` runs this in the background at
    /// start-up. After clean shutdowns it reads no body folder, so it costs nothing in proportion
    /// to the cache; it never touches a file in use, so it is safe beside other processes.
    ///
    /// A killed store is one whose marker in `runs/` is left unlocked (``close()`` deletes its
    /// marker; a kill leaves it, and the kernel drops its lock). The orphan pass takes one body
    /// folder per short write transaction (so a body being installed is never taken for an
    /// orphan, and writers wait at most one folder's lookups), pausing between folders; the
    /// markers of killed stores are deleted only once it has finished, so a pass cut short is run
    /// again next time.
    @discardableResult
    public func removeLeftovers(pause: Duration = .milliseconds(5)) async throws -> StoreLeftovers {
        var leftovers = StoreLeftovers()
        leftovers.temporaryFiles = self.leftoverFiles(in: self.temporaryDirectory, remove: true)
        let queue = try await self.settleWriteQueue(remove: true)
        leftovers.orphanQueuedBodies = queue.orphanFiles
        leftovers.queuedWritesWithoutBody = queue.writesWithoutBody
        let killedRuns = self.leftoverFiles(in: self.runsDirectory, remove: false)
        if !killedRuns.isEmpty {
            leftovers.orphanBodies = try await self.findOrphanBodies(remove: true, pause: pause)
            for marker in killedRuns {
                try? POSIXFile.removeFile(marker)
            }
        }
        if leftovers != StoreLeftovers() {
            self.logger.notice(
                "Removed what an interrupted run left",
                metadata: [
                    "orphanBodies": "\(leftovers.orphanBodies.count)",
                    "temporaryFiles": "\(leftovers.temporaryFiles.count)",
                    "orphanQueuedBodies": "\(leftovers.orphanQueuedBodies.count)",
                    "queuedWritesWithoutBody": "\(leftovers.queuedWritesWithoutBody.map(String.init).joined(separator: ","))",
                ]
            )
        }
        return leftovers
    }

    /// Finds every leftover, reading every body folder (`larder verify`), deleting them when
    /// `remove` is true.
    func findLeftovers(remove: Bool) async throws -> StoreLeftovers {
        var leftovers = StoreLeftovers()
        leftovers.temporaryFiles = self.leftoverFiles(in: self.temporaryDirectory, remove: remove)
        leftovers.orphanBodies = try await self.findOrphanBodies(remove: remove, pause: .zero)
        let queue = try await self.settleWriteQueue(remove: remove)
        leftovers.orphanQueuedBodies = queue.orphanFiles
        leftovers.queuedWritesWithoutBody = queue.writesWithoutBody
        return leftovers
    }

    /// The queue's files against its rows, in one write transaction (so no write is being queued
    /// meanwhile: its rename and its row share one): files in `queue/` no row names, deleted when
    /// `remove` is true; and the ids of writes whose body file is missing or of another size,
    /// dead-lettered with the reason when `remove` is true (an accepted write is never silently dropped).
    func settleWriteQueue(remove: Bool) async throws -> (orphanFiles: [String], writesWithoutBody: [Int64]) {
        try await self.pool.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, body_size, state, dead_reason FROM queued_write")
            var ids: Set<Int64> = []
            var withoutBody: [Int64] = []
            for row in rows {
                let id: Int64 = try row.decode(forColumn: "id")
                ids.insert(id)
                let expected: Int64 = try row.decode(forColumn: "body_size")
                let path = self.queuedBodyPath(id: id)
                let size = try POSIXFile.regularFileSize(path)
                guard size != expected else { continue }
                withoutBody.append(id)
                let reason = size.map { "its body file has \($0) bytes, not the \(expected) queued" } ?? "its body file is missing"
                let deadReason: String? = try row.decode(forColumn: "dead_reason")
                if remove, deadReason != reason {
                    try db.execute(
                        sql: "UPDATE queued_write SET state = ?, dead_reason = ?, in_flight = 0 WHERE id = ?",
                        arguments: [QueuedWrite.State.deadLetter.rawValue, reason, id]
                    )
                    try Self.forgetCredentials(db, ids: [id])
                    self.logger.error("A queued write lost its body; dead-lettered", metadata: ["id": "\(id)", "reason": "\(reason)"])
                }
            }
            var orphans: [String] = []
            let names = (try? FileManager.default.contentsOfDirectory(atPath: self.queueDirectory)) ?? []
            for name in names.sorted() where name.hasSuffix(".body") {
                guard let id = Int64(name.dropLast(".body".count)), !ids.contains(id) else { continue }
                let path = "\(self.queueDirectory)/\(name)"
                if remove {
                    try POSIXFile.removeFile(path)
                }
                orphans.append(path)
            }
            return (orphans, withoutBody.sorted())
        }
    }

    /// Body files no entry references, one body folder (and write transaction) at a time.
    private func findOrphanBodies(remove: Bool, pause: Duration) async throws -> [String] {
        var orphans: [String] = []
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: self.bodiesDirectory)) ?? []
        for folder in folders.sorted() where folder.utf8.count == 2 {
            let folderPath = "\(self.bodiesDirectory)/\(folder)"
            orphans += try await self.pool.write { db -> [String] in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
                var found: [String] = []
                for name in names.sorted() where Self.isSHA256Hex(name) && name.hasPrefix(folder) {
                    guard try !Self.isReferenced(db, hash: name) else { continue }
                    let path = "\(folderPath)/\(name)"
                    if remove {
                        try POSIXFile.removeFile(path)
                    }
                    found.append(path)
                }
                return found
            }
            if pause > .zero {
                try await Task.sleep(for: pause)
            }
        }
        return orphans
    }

    /// Files in `folder` that no living holder locks (see ``POSIXFile/createLockedFile(in:suffix:)``),
    /// deleted when `remove` is true.
    private func leftoverFiles(in folder: String, remove: Bool) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var found: [String] = []
        for name in names.sorted() {
            let path = "\(folder)/\(name)"
            do {
                if try POSIXFile.isLeftOver(path, remove: remove) {
                    found.append(path)
                }
            } catch {
                self.logger.warning("Cannot delete a leftover file", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        return found
    }
}
