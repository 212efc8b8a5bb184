import CZlib
import LarderHTTP
import NIOCore

/// Decodes a gzip or deflate body while it streams, in pieces of at most
/// ``maximumPieceLength`` bytes.
///
/// ```swift
/// let decoder = ContentDecoder(coding: .gzip)
/// for try await chunk in body {
///     decoder.feed(chunk)
///     while let piece = try decoder.next() { try await writer.body(piece) }
/// }
/// try decoder.finish()
/// ```
///
/// `next()` inflates no more than one piece, so a chunk that expands enormously (a run of zeros,
/// a decompression bomb) is never held in memory whole: memory stays flat however the body is
/// chunked.
///
/// - gzip: members follow one another (multi-member gzip, RFC 1952 section 2.2); after a member,
///   bytes that do not start another one are ignored, as gzip(1) and browsers ignore them.
/// - deflate: the first two bytes decide between a zlib stream (they are a valid zlib header) and
///   a raw deflate stream. A raw stream from a real encoder never starts with a zlib header: the
///   only first bytes with a zlib header's low four bits begin a non-final stored block with a
///   padding bit set, and encoders leave padding zero. Bytes after the end of the stream are ignored.
/// - An empty body decodes to an empty body: servers label empty responses with a coding too.
///
/// Not `Sendable`: one task feeds and drains it. It frees zlib's state when released.
public final class ContentDecoder {
    /// The most bytes one piece holds.
    public static let maximumPieceLength = 64 * 1024

    /// The coding being undone.
    public let coding: ContentCoding

    private enum Phase {
        /// Waiting for the first two bytes of the body, or of a further gzip member, to choose how
        /// to decode them.
        case awaitingStart(first: Bool)
        /// zlib is decoding a stream.
        case inStream
        /// The coded data has ended; anything after it is ignored.
        case complete
        /// Decoding failed; every later call reports the same error.
        case failed(ContentDecodingError)
    }

    /// What one call to zlib achieved.
    private enum Step {
        /// Decoded bytes.
        case piece(ByteBuffer)
        /// Input consumed or a stream ended, without output yet.
        case progressed
        /// Nothing more without more input.
        case stalled
    }

    private var phase = Phase.awaitingStart(first: true)
    /// Fed bytes zlib has not consumed yet.
    private var pending = ByteBuffer()
    /// zlib keeps a pointer back to its stream, so the stream lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>
    private var streamInitialized = false
    /// zlib inflates into this, and each piece is copied out at its exact size.
    private let scratch: UnsafeMutableRawBufferPointer
    private let allocator = ByteBufferAllocator()

    /// A decoder for one body in `coding`.
    public init(coding: ContentCoding) {
        self.coding = coding
        self.stream = .allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
        self.scratch = .allocate(byteCount: Self.maximumPieceLength, alignment: 1)
    }

    deinit {
        if self.streamInitialized {
            inflateEnd(self.stream)
        }
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
        self.scratch.deallocate()
    }

    /// Adds the next chunk of the coded body; drain it with ``next()`` before feeding more.
    public func feed(_ chunk: ByteBuffer) {
        if self.pending.readableBytes == 0 {
            self.pending = chunk
        } else {
            self.pending.writeImmutableBuffer(chunk)
        }
    }

    /// The next piece of decoded bytes (at most ``maximumPieceLength``), or nil when the chunks fed
    /// so far hold no more.
    public func next() throws(ContentDecodingError) -> ByteBuffer? {
        while true {
            switch self.phase {
            case .failed(let error):
                throw error
            case .complete:
                self.pending.clear()
                return nil
            case .awaitingStart(let first):
                guard let header = self.pending.getBytes(at: self.pending.readerIndex, length: 2) else { return nil }
                try self.start(first: first, byte0: header[0], byte1: header[1])
            case .inStream:
                switch try self.inflateStep() {
                case .piece(let piece):
                    return piece
                case .progressed:
                    continue
                case .stalled:
                    return nil
                }
            }
        }
    }

    /// Checks that the body ended where the coded data does; call it once ``next()`` has returned
    /// nil after the last chunk.
    ///
    /// - Throws: ``ContentDecodingError/Reason/truncated`` when the body stopped inside a stream
    ///   or gzip member.
    public func finish() throws(ContentDecodingError) {
        let truncated: Bool
        switch self.phase {
        case .failed(let error):
            throw error
        case .complete:
            truncated = false
        case .awaitingStart(first: true):
            // Nothing at all is an empty body; one byte is the start of a stream.
            truncated = self.pending.readableBytes > 0
        case .awaitingStart(first: false):
            // One byte after a gzip member starts another one only if it is the first byte of the
            // gzip magic number; anything else is trailing garbage.
            truncated = self.pending.getInteger(at: self.pending.readerIndex, as: UInt8.self) == 0x1f
        case .inStream:
            truncated = true
        }
        if truncated {
            try self.fail(.truncated)
        }
    }

    /// Sets zlib up for the stream or member whose first two bytes these are.
    private func start(first: Bool, byte0: UInt8, byte1: UInt8) throws(ContentDecodingError) {
        let windowBits: Int32
        switch self.coding {
        case .gzip:
            guard byte0 == 0x1f, byte1 == 0x8b else {
                guard first else {
                    self.phase = .complete
                    return
                }
                try self.fail(.corrupt("not gzip data"))
            }
            // 16 + 15: a gzip header and trailer around a deflate stream with a window of up to 32 KiB.
            windowBits = 16 + 15
        case .deflate:
            // RFC 1950 section 2.2: method 8 (deflate), a window of at most 32 KiB, and a check
            // value that makes the first two bytes a multiple of 31.
            let isZlibHeader = byte0 & 0x0f == 8 && byte0 >> 4 <= 7 && (UInt16(byte0) << 8 | UInt16(byte1)) % 31 == 0
            windowBits = isZlibHeader ? 15 : -15
        }
        if self.streamInitialized {
            // Only gzip starts again, for its next member, with the same window bits.
            let result = inflateReset(self.stream)
            precondition(result == Z_OK, "inflateReset failed (\(result))")
        } else {
            let result = larder_inflateInit2(self.stream, windowBits)
            guard result == Z_OK else {
                precondition(result == Z_MEM_ERROR, "inflateInit2 failed (\(result))")
                try self.fail(.outOfMemory)
            }
            self.streamInitialized = true
        }
        self.phase = .inStream
    }

    /// One call to `inflate`, with all pending input and room for one piece.
    private func inflateStep() throws(ContentDecodingError) -> Step {
        let offered = min(self.pending.readableBytes, Int(UInt32.max))
        let (result, consumed) = self.pending.withUnsafeReadableBytes { input in
            self.stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            self.stream.pointee.avail_in = UInt32(offered)
            self.stream.pointee.next_out = self.scratch.baseAddress?.assumingMemoryBound(to: Bytef.self)
            self.stream.pointee.avail_out = UInt32(self.scratch.count)
            let result = inflate(self.stream, Z_NO_FLUSH)
            let consumed = offered - Int(self.stream.pointee.avail_in)
            // The input is only borrowed for this call.
            self.stream.pointee.next_in = nil
            self.stream.pointee.avail_in = 0
            return (result, consumed)
        }
        let produced = self.scratch.count - Int(self.stream.pointee.avail_out)
        self.pending.moveReaderIndex(forwardBy: consumed)
        switch result {
        case Z_OK, Z_BUF_ERROR:
            break
        case Z_STREAM_END:
            self.phase = self.coding == .gzip ? .awaitingStart(first: false) : .complete
        case Z_NEED_DICT:
            try self.fail(.corrupt("needs a preset dictionary"))
        case Z_MEM_ERROR:
            try self.fail(.outOfMemory)
        default:
            try self.fail(.corrupt(self.stream.pointee.msg.map { String(cString: $0) } ?? "invalid data (zlib error \(result))"))
        }
        if produced > 0 {
            return .piece(self.allocator.buffer(bytes: UnsafeRawBufferPointer(rebasing: self.scratch[..<produced])))
        }
        return consumed > 0 || result == Z_STREAM_END ? .progressed : .stalled
    }

    /// Records the failure for later calls and throws it.
    private func fail(_ reason: ContentDecodingError.Reason) throws(ContentDecodingError) -> Never {
        let error = ContentDecodingError(coding: self.coding, reason: reason)
        self.phase = .failed(error)
        throw error
    }
}

/// One task feeds and drains a decoder: its zlib state must not be shared.
@available(*, unavailable)
extension ContentDecoder: Sendable {}
