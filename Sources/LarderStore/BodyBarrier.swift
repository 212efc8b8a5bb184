#if os(Linux)
    import CFileSync
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durability barrier of an install batch (docs/FORMATS.md, "Crash safety"), in two steps
/// that together come between the bodies being written and any of their rows being committed:
/// ``flushContents`` before the batch's write transaction (so the index's write lock is not held
/// while the disk works), ``flushNames`` inside it, after the renames into `bodies/`.
///
/// A step that throws fails the whole batch: none of its bodies gets a row.
struct BodyBarrier: Sendable {
    /// Makes the contents of the batch's bodies durable, given their temporary files' descriptors
    /// (with their paths, for errors); throws ``StoreError``.
    let flushContents: @Sendable (_ files: [(descriptor: Int32, path: String)]) throws -> Void
    /// Makes the names just renamed into each of `folders` (the touched `bodies/xx`, each once)
    /// durable; throws ``StoreError``.
    let flushNames: @Sendable (_ folders: [String]) throws -> Void

    /// The file system's own barrier, targeted at the batch's files so that other programs'
    /// unwritten data is never waited for (as `syncfs` would): every body is `fdatasync`ed, then
    /// every touched folder fsynced once, each step's flushes in flight together when they wait
    /// for a disk (``FlushPool``) so that they share journal commits and device flushes. On Linux every
    /// body's write-back is started first (`sync_file_range`), so the disk works on all at once.
    static let system = BodyBarrier(
        flushContents: { files in
            Self.startWriteback(files)
            try FlushPool.shared.forEach(files) { file in
                #if os(Linux)
                    let flushed = fdatasync(file.descriptor)
                #else
                    let flushed = fsync(file.descriptor)
                #endif
                guard flushed == 0 else {
                    throw StoreError.io(path: file.path, operation: "flush", errno: errno)
                }
            }
        },
        flushNames: { folders in
            try FlushPool.shared.forEach(folders) { try POSIXFile.syncDirectory($0) }
        }
    )
}

extension BodyBarrier {
    /// Whether the file system holding `path` keeps files across a restart: false for one in
    /// memory only (on Linux, tmpfs or ramfs, which `statfs` names), where a restart loses the
    /// index with the bodies, so no barrier can protect anything and the store takes none. Elsewhere,
    /// and when the answer is unknown, true.
    static func fileSystemKeepsFiles(at path: String) -> Bool {
        #if os(Linux)
            // f_type's width differs between architectures; the magic numbers are 32 bits
            // (linux/magic.h: TMPFS_MAGIC, RAMFS_MAGIC). A failed statfs gives 0: keeps files.
            let type = UInt32(truncatingIfNeeded: larder_file_system_type(path))
            return type != 0x0102_1994 && type != 0x8584_58f6
        #else
            return true
        #endif
    }

    /// Starts writing `files` back (on Linux, `sync_file_range`), without waiting: a head start
    /// for the flush that makes them durable later (a staged body's at its version's switch, so
    /// that the disk writes it while the downloads go on). Any failure shows again in that flush.
    static func startWriteback(_ files: [(descriptor: Int32, path: String)]) {
        #if os(Linux)
            for file in files {
                _ = larder_start_writeback(file.descriptor)
            }
        #endif
    }

    /// How many body files ``flushPlaced(_:)`` holds open at once.
    static let placedFilesAtOnce = 256

    /// Makes body files already in `bodies/` durable, their contents then their folders (each
    /// once): the barrier of bodies staged without one of their own, which their game version's
    /// switch takes for them all (docs/FORMATS.md, "Crash safety"). Returns the paths flushed; a
    /// file that is missing is left out. Throws ``StoreError`` when a flush fails.
    func flushPlaced(_ paths: [String]) throws -> Set<String> {
        guard !paths.isEmpty else { return [] }
        var flushed = Set<String>()
        for chunk in paths.batches(of: Self.placedFilesAtOnce) {
            var files: [(descriptor: Int32, path: String)] = []
            defer {
                for file in files {
                    close(file.descriptor)
                }
            }
            for path in chunk {
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    guard errno == ENOENT else { throw StoreError.io(path: path, operation: "open", errno: errno) }
                    continue
                }
                files.append((descriptor, path))
            }
            try self.flushContents(files)
            flushed.formUnion(files.map(\.path))
        }
        let folders = Set(flushed.map { path in path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "." })
        try self.flushNames(folders.sorted())
        return flushed
    }
}
