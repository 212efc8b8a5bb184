#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a tar stream (a file or a pipe) entry by entry, never holding more than one buffer of it:
/// ``next()`` gives each entry's name and size, ``read(upTo:)`` its data in pieces.
///
/// Strict, since a pack comes from another device: only regular files (and pax headers giving a
/// size) are accepted, and a name that is absolute, has an empty, `.` or `..` segment, a backslash
/// or a NUL is refused before anything is done with it. The stream must end with the
/// end-of-archive block; ending anywhere else is ``PackError/truncated(path:entry:)``.
final class TarReader {
    /// The pack's path, for errors.
    let path: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var remaining: Int64 = 0
    private var padding = 0
    /// The entry being read, for errors.
    private(set) var current: String?

    /// Reads from `descriptor` (not closed here); `path` names the pack in errors.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// The next entry's name and size, skipping what is left of the current one; nil at the end of
    /// the archive.
    func next() throws -> (name: String, size: Int64)? {
        while self.remaining > 0 {
            _ = try self.read(upTo: 1 << 16)
        }
        try self.skip(self.padding)
        self.padding = 0
        let header = try self.header()
        guard var header else {
            self.current = nil
            return nil
        }
        if header.kind == .paxExtended {
            guard header.size <= 1 << 16 else {
                throw PackError.damaged(path: self.path, reason: "a pax header of \(header.size) bytes is larger than any pack writes")
            }
            let records = try self.take(Int(header.size))
            try self.skip(Self.padding(for: header.size))
            let size: Int64?
            do {
                size = try TarHeader.paxSize(records)
            } catch {
                throw PackError(error, path: self.path, entry: self.current)
            }
            guard let next = try self.header(), next.kind == .file else {
                throw PackError.damaged(path: self.path, reason: "a pax header is not followed by a file")
            }
            header = next
            if let size { header.size = size }
        }
        guard Self.isSafe(header.name) else {
            throw PackError(.unsafeName(header.name), path: self.path, entry: self.current)
        }
        self.current = header.name
        self.remaining = header.size
        self.padding = Self.padding(for: header.size)
        return (header.name, header.size)
    }

    /// Up to `count` bytes of the current entry's data; empty once it is all read.
    func read(upTo count: Int) throws -> ArraySlice<UInt8> {
        guard self.remaining > 0 else { return [] }
        if self.start == self.buffer.count {
            try self.fill()
        }
        let length = min(count, self.buffer.count - self.start, Int(clamping: self.remaining))
        let slice = self.buffer[self.start..<(self.start + length)]
        self.start += length
        self.remaining -= Int64(length)
        return slice
    }

    /// Whether a tar name stays inside the archive: relative, every segment a plain name.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\u{0}") else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    private static func padding(for size: Int64) -> Int {
        Int((Int64(TarHeader.blockSize) - size % Int64(TarHeader.blockSize)) % Int64(TarHeader.blockSize))
    }

    /// The next header; nil at the end-of-archive block.
    private func header() throws -> TarHeader? {
        let block = try self.take(TarHeader.blockSize)
        if block.allSatisfy({ $0 == 0 }) {
            // The second end block is optional in practice (some writers stop after one).
            return nil
        }
        do {
            return try TarHeader.decode(block[...])
        } catch {
            throw PackError(error, path: self.path, entry: self.current)
        }
    }

    /// Exactly `count` bytes, or ``PackError/truncated(path:entry:)``.
    private func take(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if self.start == self.buffer.count {
                try self.fill()
            }
            let length = min(count - bytes.count, self.buffer.count - self.start)
            bytes += self.buffer[self.start..<(self.start + length)]
            self.start += length
        }
        return bytes
    }

    private func skip(_ count: Int) throws {
        _ = try self.take(count)
    }

    /// Reads the next piece of the stream into the (empty) buffer; the stream's end here is a truncation.
    private func fill() throws {
        self.buffer = [UInt8](repeating: 0, count: 1 << 16)
        self.start = 0
        while true {
            let count = self.buffer.withUnsafeMutableBytes { readDescriptor(self.descriptor, $0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw PackError.io(path: self.path, operation: "read", errno: errno)
            }
            guard count > 0 else {
                self.buffer = []
                throw PackError.truncated(path: self.path, entry: self.remaining > 0 ? self.current : nil)
            }
            self.buffer.removeSubrange(count...)
            return
        }
    }
}

/// `read(2)`, named apart from ``TarReader/read(upTo:)``.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
