import Atomics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many changes to the index's entries have been committed, by any process that has the
/// cache directory open: `index.changes`, eight bytes mapped into every such process's memory.
///
/// A store adds one after each commit that changes entries; a remembered lookup holds only while
/// the count is what it was before the lookup read the index (``EntryMemo``). So `larder serve`
/// sees what a `larder precache` beside it commits at once, and checking costs one atomic load:
/// no lookup has to be read again on a timer just in case another process wrote.
final class IndexChangeCounter: Sendable {
    /// The mapped count; the mapping lives as long as this object.
    private let count: UnsafeAtomic<UInt64>
    private let mapping: Int

    /// Maps the counter file at `path`, creating it (zero) when missing.
    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateDirectory.fileMode)
        guard descriptor >= 0 else {
            throw .io(path: path, operation: "open", errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .io(path: path, operation: "stat", errno: errno)
        }
        let size = MemoryLayout<UInt64>.size
        // Extending a short file adds zeros; a file already long enough is never truncated, as
        // another process may have it mapped.
        if status.st_size < size, ftruncate(descriptor, off_t(size)) != 0 {
            throw .io(path: path, operation: "extend", errno: errno)
        }
        guard let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), address != MAP_FAILED else {
            throw .io(path: path, operation: "map", errno: errno)
        }
        self.mapping = Int(bitPattern: address)
        self.count = UnsafeAtomic(at: address.assumingMemoryBound(to: UInt64.AtomicRepresentation.self))
    }

    deinit {
        munmap(UnsafeMutableRawPointer(bitPattern: self.mapping), MemoryLayout<UInt64>.size)
    }

    /// The count now.
    var value: UInt64 {
        self.count.load(ordering: .acquiring)
    }

    /// Counts one committed change (after the commit, so a process that sees the new count and
    /// reads the index finds the change).
    func increment() {
        self.count.wrappingIncrement(ordering: .releasing)
    }
}
