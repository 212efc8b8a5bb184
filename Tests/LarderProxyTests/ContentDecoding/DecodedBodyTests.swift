import LarderTestSupport
import NIOCore
import Testing

@testable import LarderProxy

@Suite("DecodedBody: an async sequence of coded chunks, decoded as it is read")
struct DecodedBodyTests {
    @Test("gzip chunks decode to the original, in pieces of at most 64 KiB")
    func decodes() async throws {
        let original = CodedBodies.repetitive
        let coded = try await CodedBodies.systemGzip(original)
        var decoded: [UInt8] = []
        var largest = 0
        for try await piece in Self.chunks(coded, length: 100).decoded(.gzip) {
            decoded.append(contentsOf: piece.readableBytesView)
            largest = max(largest, piece.readableBytes)
        }
        #expect(Bytes(decoded) == Bytes(original))
        #expect(largest <= ContentDecoder.maximumPieceLength)
    }

    @Test("a truncated body throws at its end, after the bytes it held")
    func truncated() async throws {
        let coded = try CodedBodies.zlibStream(CodedBodies.repetitive)
        var iterator = Self.chunks(Array(coded.dropLast(3)), length: 50).decoded(.deflate).makeAsyncIterator()
        var decoded = 0
        await #expect(throws: ContentDecodingError(coding: .deflate, reason: .truncated)) {
            while let piece = try await iterator.next() { decoded += piece.readableBytes }
        }
        #expect(decoded == CodedBodies.repetitive.count, "only the checksum was missing")
    }

    @Test("the base's error passes through")
    func baseError() async throws {
        struct ConnectionReset: Error {}
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
        continuation.yield(ByteBuffer(bytes: try CodedBodies.zlibStream(Array("partial".utf8)).prefix(4)))
        continuation.finish(throwing: ConnectionReset())
        await #expect(throws: ConnectionReset.self) {
            for try await _ in stream.decoded(.deflate) {}
        }
    }

    /// `bytes` as a finished stream of chunks of `length` bytes.
    private static func chunks(_ bytes: [UInt8], length: Int) -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        for start in stride(from: 0, to: bytes.count, by: length) {
            continuation.yield(ByteBuffer(bytes: bytes[start..<min(start + length, bytes.count)]))
        }
        continuation.finish()
        return stream
    }
}
