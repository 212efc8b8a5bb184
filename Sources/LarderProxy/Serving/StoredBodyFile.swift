import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes of a stored body that go to the client from its file, on either hit path: by `sendfile`
/// on a plain connection (the kernel copies them from the page cache to the socket, without a
/// read into Larder), and read in chunks on the event loop inside intercepted TLS, which must see
/// the bytes to encrypt them (``ProxyChannelAdapter``).
///
/// The file is opened only when it is a regular file of its indexed size, so a body file whose
/// size differs from the index is never served. Once open, eviction (an unlink) or a newer body
/// renamed over the name cannot change what is sent: the descriptor keeps the file it opened,
/// and body files are never written in place.
public struct StoredBodyFile: Sendable {
    /// Owns the descriptor: it closes when the last copy of the value goes (written, failed, or
    /// dropped unsent with its connection), so no path can leak it.
    private final class Descriptor: Sendable {
        let handle: NIOFileHandle

        init(_ handle: NIOFileHandle) {
            self.handle = handle
        }

        deinit {
            try? self.handle.close()
        }
    }

    private let descriptor: Descriptor
    /// Which bytes of the file go.
    let range: Range<Int64>

    /// Opens the body file at `path` when it is a regular file of exactly `size` bytes (nil for
    /// anything else: a file evicted meanwhile, or damaged); `range` (within `size`) says which
    /// bytes go, the whole file by default. Two system calls on a path in the page cache: cheaper
    /// where the caller runs (the event loop, as nginx's opens are) than a hop to a thread pool.
    static func open(_ path: String, size: Int64, range: Range<Int64>? = nil) -> StoredBodyFile? {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int64(status.st_size) == size else {
            close(descriptor)
            return nil
        }
        let range = range ?? 0..<size
        precondition(range.lowerBound >= 0 && range.upperBound <= size, "range \(range) outside a body of \(size) bytes")
        return StoredBodyFile(
            descriptor: Descriptor(NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)), range: range)
    }

    /// The region NIO writes with `sendfile`. The value must be kept until the write completes:
    /// the region does not keep the descriptor open.
    var region: FileRegion {
        FileRegion(fileHandle: self.descriptor.handle, readerIndex: Int(self.range.lowerBound), endIndex: Int(self.range.upperBound))
    }

    /// Reads up to `length` bytes of the file at `offset` (an offset in the file, not in the
    /// range) into a new buffer: fewer, or none, only when the file was shortened meanwhile. A
    /// `pread` on the calling thread, as `sendfile` is: the file is read where it is sent.
    func read(at offset: Int64, length: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: length)
        _ = try? self.descriptor.handle.withUnsafeFileDescriptor { descriptor in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
                var read = 0
                while read < length {
                    let got = pread(descriptor, bytes.baseAddress! + read, length - read, off_t(offset) + off_t(read))
                    if got > 0 {
                        read += got
                    } else if got < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                return read
            }
        }
        return buffer
    }

    /// Whether the file still holds every byte of the range. Larder never shortens a body file,
    /// but should something else, `sendfile` would find nothing more to send and NIO would try
    /// again for ever (with the socket writable); the writer checks this meanwhile.
    var isIntact: Bool {
        (try? self.descriptor.handle.withUnsafeFileDescriptor { descriptor in
            var status = stat()
            return fstat(descriptor, &status) == 0 && Int64(status.st_size) >= self.range.upperBound
        }) ?? false
    }
}

/// `open(2)` for reading, out of ``StoredBodyFile``, whose own `open` would shadow it.
private func openForReading(_ path: String) -> CInt {
    open(path, O_RDONLY | O_CLOEXEC)
}
