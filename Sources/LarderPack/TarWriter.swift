#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a POSIX ustar stream (a file or a pipe), entry by entry, each entry's data in pieces:
/// nothing is held in memory beyond the piece being written.
///
/// An entry's size is written in its header before its data, so ``beginFile(name:size:modified:)``
/// takes it and ``endFile()`` checks that exactly that many bytes came. Sizes past the 8 GiB the
/// octal field holds get a pax extended header first. ``finish()`` writes the end-of-archive blocks.
final class TarWriter {
    /// Where the stream goes, for errors.
    let path: String
    private let descriptor: Int32
    private var current: (name: String, size: Int64, written: Int64)?

    /// Writes to `descriptor` (not closed here); `path` names it in errors.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Starts an entry of `size` bytes.
    func beginFile(name: String, size: Int64, modified: Int64) throws {
        precondition(self.current == nil, "the previous entry was not ended")
        precondition(TarReader.isSafe(name) && name.utf8.count <= 100, "a pack's names are short and relative")
        if size > TarHeader.largestOctalSize {
            let records = TarHeader.paxRecords(size: size)
            let paxName = String("PaxHeaders/\(name)".prefix(100))
            try self.writeAll(TarHeader(name: paxName, size: Int64(records.count), kind: .paxExtended).encoded())
            try self.writeAll(records)
            try self.pad(Int64(records.count))
        }
        try self.writeAll(TarHeader(name: name, size: size, kind: .file, modified: modified).encoded())
        self.current = (name, size, 0)
    }

    /// Appends data to the current entry.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let current else { preconditionFailure("no entry was begun") }
        precondition(current.written + Int64(bytes.count) <= current.size, "more data than the entry's size")
        try self.writeAll(bytes)
        self.current?.written += Int64(bytes.count)
    }

    /// Appends data to the current entry.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try self.write($0) }
    }

    /// Ends the current entry (its padding to the block size).
    func endFile() throws {
        guard let current else { preconditionFailure("no entry was begun") }
        precondition(current.written == current.size, "\(current.name): \(current.written) of \(current.size) bytes written")
        try self.pad(current.size)
        self.current = nil
    }

    /// Writes the end-of-archive marker: two zero blocks.
    func finish() throws {
        precondition(self.current == nil, "the last entry was not ended")
        try self.writeAll([UInt8](repeating: 0, count: 2 * TarHeader.blockSize))
    }

    private func pad(_ size: Int64) throws {
        let block = Int64(TarHeader.blockSize)
        let padding = Int((block - size % block) % block)
        if padding > 0 {
            try self.writeAll([UInt8](repeating: 0, count: padding))
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try self.writeAll($0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = writeDescriptor(self.descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw PackError.io(path: self.path, operation: "write", errno: errno)
            }
            offset += count
        }
    }
}

/// `write(2)`, named apart from ``TarWriter/write(_:)``.
private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(descriptor, bytes.baseAddress, bytes.count)
}
