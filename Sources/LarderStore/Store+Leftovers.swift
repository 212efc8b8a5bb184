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
        let killedRuns = self.leftoverFiles(in: self.runsDirectory, remove: false)
        if !killedRuns.isEmpty {
            leftovers.orphanBodies = try await self.findOrphanBodies(remove: true, pause: pause)
            for marker in killedRuns {
                try? POSIXFile.removeFile(marker)
            }
        }
        if !leftovers.orphanBodies.isEmpty || !leftovers.temporaryFiles.isEmpty {
            self.logger.notice(
                "Removed what an interrupted run left",
                metadata: [
                    "orphanBodies": "\(leftovers.orphanBodies.count)",
                    "temporaryFiles": "\(leftovers.temporaryFiles.count)",
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
        return leftovers
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
