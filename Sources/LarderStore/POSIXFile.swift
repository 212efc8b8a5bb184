import Dispatch
import LarderHTTP
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls the store needs, throwing ``StoreError/io(path:operation:errno:)``.
enum POSIXFile {
    /// Creates one directory, private to the user (``PrivateDirectory/folderMode``); an existing
    /// one is fine. Returns whether it was created.
    @discardableResult
    static func makeDirectory(_ path: String) throws(StoreError) -> Bool {
        if mkdir(path, PrivateDirectory.folderMode) == 0 {
            return true
        }
        guard errno == EEXIST else {
            throw .io(path: path, operation: "create directory", errno: errno)
        }
        return false
    }

    /// Flushes a directory, so that names just created or renamed in it survive a crash.
    static func syncDirectory(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .io(path: path, operation: "open directory", errno: errno)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw .io(path: path, operation: "fsync directory", errno: errno)
        }
    }

    /// Flushes an open file to disk on a background thread (``onSyncThread(_:)``).
    static func sync(_ descriptor: Int32, path: String) async throws {
        try await self.onSyncThread {
            guard fsync(descriptor) == 0 else {
                throw StoreError.io(path: path, operation: "fsync", errno: errno)
            }
        }
    }

    /// Runs `work`, which waits for the disk, on a background thread, so the caller's thread (one
    /// of the few that run tasks) is not blocked meanwhile.
    static func onSyncThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Self.syncQueue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    private static let syncQueue = DispatchQueue(label: "larder.store.fsync", qos: .utility, attributes: .concurrent)

    /// Whether anything exists at `path`.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The size of a regular file, or nil when there is no such file.
    static func regularFileSize(_ path: String) throws(StoreError) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR {
                return nil
            }
            throw .io(path: path, operation: "stat", errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return nil
        }
        return Int64(info.st_size)
    }

    /// Deletes a file; a missing file is fine.
    static func removeFile(_ path: String) throws(StoreError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .io(path: path, operation: "delete", errno: errno)
        }
    }

    /// Atomically renames `source` to `destination`, replacing what is there.
    static func renameFile(_ source: String, to destination: String) throws(StoreError) {
        guard rename(source, destination) == 0 else {
            throw .io(path: source, operation: "rename to \(destination)", errno: errno)
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying short writes and EINTR.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) {
        guard var address = bytes.baseAddress else {
            return
        }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, address, remaining)
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                throw .io(path: path, operation: "write", errno: errno)
            }
            remaining -= written
            address += written
        }
    }

    /// Creates a new file with a unique name (``uniqueName()``) and `suffix` in `folder` (making
    /// the folder again if it was deleted) and takes an exclusive `flock` on it, held until the
    /// descriptor is closed: a file in `folder` that can be locked belongs to no living holder, in
    /// any process. Returns the path and the open descriptor (write-only).
    static func createLockedFile(in folder: String, suffix: String) throws(StoreError) -> (path: String, descriptor: Int32) {
        while true {
            let path = "\(folder)/\(self.uniqueName())\(suffix)"
            var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, PrivateDirectory.fileMode)
            if descriptor < 0, errno == ENOENT {
                try self.makeDirectory(folder)
                descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, PrivateDirectory.fileMode)
            }
            guard descriptor >= 0 else {
                // Taken (by another process that drew the same prefix): the counter moves on.
                if errno == EEXIST {
                    continue
                }
                throw .io(path: path, operation: "create", errno: errno)
            }
            // A cleaner (or `larder verify`) opened the file between its creation and this lock:
            // leave that name, deleting it if the cleaner did not, and start again under another.
            guard self.tryLock(descriptor), self.names(path, descriptor) else {
                if self.names(path, descriptor) {
                    try? self.removeFile(path)
                }
                close(descriptor)
                continue
            }
            return (path, descriptor)
        }
    }

    /// 32 hex digits, unique to this call: 64 random bits drawn once per process, then a counter,
    /// so that a name costs no system call (a precache run names thousands of temporary files).
    /// Names from two processes share a prefix with a chance of 2^-64; `O_EXCL` catches even that.
    static func uniqueName() -> String {
        let bits: (UInt64, UInt64) = (Self.processNamePrefix, Self.namesMade.add(1, ordering: .relaxed).newValue)
        return withUnsafeBytes(of: bits) { LowercaseHex.string($0) }
    }

    /// The random half of ``uniqueName()``, from the system's generator (Foundation's `UUID` would
    /// open and read `/dev/urandom`).
    private static let processNamePrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// How many names ``uniqueName()`` has made in this process.
    private static let namesMade = Atomic<UInt64>(0)

    /// Whether the file at `path` is left over: nobody holds its `flock` (see
    /// ``createLockedFile(in:suffix:)``). When `remove` is true, a left-over file is deleted while
    /// locked, so a holder that raced to create it sees it gone and starts another.
    static func isLeftOver(_ path: String, remove: Bool) throws(StoreError) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard self.tryLock(descriptor), self.names(path, descriptor) else { return false }
        if remove {
            try self.removeFile(path)
        }
        return true
    }

    /// Takes an exclusive `flock` on `descriptor` without waiting; false when another open file
    /// (in this process or another) holds one.
    static func tryLock(_ descriptor: Int32) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    /// Closes a descriptor (for types whose own `close` method hides the C function).
    static func closeDescriptor(_ descriptor: Int32) {
        close(descriptor)
    }

    /// Whether `path` still names the file open as `descriptor` (it was not deleted or replaced).
    static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// Runs `body` holding an exclusive `flock` on the file at `path` (created if needed), which
    /// excludes other processes and other descriptors in this process alike.
    static func withExclusiveLock<T>(path: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateDirectory.fileMode)
        guard descriptor >= 0 else {
            throw StoreError.io(path: path, operation: "open", errno: errno)
        }
        // Closing the descriptor releases the lock.
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StoreError.io(path: path, operation: "lock", errno: errno)
            }
        }
        return try body()
    }
}
