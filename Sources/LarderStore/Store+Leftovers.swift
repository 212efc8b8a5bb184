import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// Finds, and deletes, what interrupted runs left: temporary files no writer holds and body
    /// files no entry references. `larder serve` runs this in the background at start-up; it never
    /// touches a file that is in use, so it is safe beside other processes on the same directory.
    ///
    /// Bounded: one body folder per short write transaction (so a body being installed is never
    /// taken for an orphan, and writers wait at most one folder's lookups), with a pause between
    /// folders so requests and commits are not kept waiting.
    @discardableResult
    public func removeLeftovers(pause: Duration = .milliseconds(5)) async throws -> StoreLeftovers {
        try await self.findLeftovers(remove: true, pause: pause)
    }

    /// Finds the leftovers, deleting them when `remove` is true.
    func findLeftovers(remove: Bool, pause: Duration = .zero) async throws -> StoreLeftovers {
        var leftovers = StoreLeftovers()
        leftovers.temporaryFiles = self.findLeftoverTemporaryFiles(remove: remove)
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: self.bodiesDirectory)) ?? []
        for folder in folders.sorted() where folder.utf8.count == 2 {
            let folderPath = "\(self.bodiesDirectory)/\(folder)"
            leftovers.orphanBodies += try await self.pool.write { db -> [String] in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
                var found: [String] = []
                for name in names.sorted() where Self.isSHA256Hex(name) && name.hasPrefix(folder) {
                    let referenced =
                        try Bool.fetchOne(
                            db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM entry WHERE body_hash = ?)"),
                            arguments: [name]
                        ) ?? false
                    guard !referenced else { continue }
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
        if remove, !leftovers.orphanBodies.isEmpty || !leftovers.temporaryFiles.isEmpty {
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

    /// Files in `tmp/` whose `flock` can be taken: no writer holds them (``makeBodyWriter()`` locks
    /// its file for as long as it writes), so they are left over from a crash. Each is deleted while
    /// locked, so a writer that raced to create it sees it gone and starts another.
    private func findLeftoverTemporaryFiles(remove: Bool) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: self.temporaryDirectory)) ?? []
        var found: [String] = []
        for name in names.sorted() {
            let path = "\(self.temporaryDirectory)/\(name)"
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { POSIXFile.closeDescriptor(descriptor) }
            guard POSIXFile.tryLock(descriptor), POSIXFile.names(path, descriptor) else { continue }
            if remove {
                do {
                    try POSIXFile.removeFile(path)
                } catch {
                    self.logger.warning("Cannot delete a leftover temporary file", metadata: ["path": "\(path)", "error": "\(error)"])
                    continue
                }
            }
            found.append(path)
        }
        return found
    }
}
