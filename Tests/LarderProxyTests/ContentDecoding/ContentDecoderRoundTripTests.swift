import CZlib
import Foundation
import LarderHTTP
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderProxy

@Suite("ContentDecoder: bodies coded by gzip(1) and zlib decode back, however they are chunked")
struct ContentDecoderRoundTripTests {
    @Test("gzip(1) output, repetitive and incompressible, in chunks of every length from 1 to the whole body")
    func gzipEveryChunkLength() async throws {
        for original in [CodedBodies.repetitive, CodedBodies.random(count: 3000, seed: 1)] {
            let coded = try await CodedBodies.systemGzip(original)
            Self.expectEveryChunkLengthDecodes(coded, as: .gzip, to: original)
        }
    }

    @Test("a zlib stream from compress2, in chunks of every length")
    func zlibEveryChunkLength() throws {
        for original in [CodedBodies.repetitive, CodedBodies.random(count: 3000, seed: 2)] {
            Self.expectEveryChunkLengthDecodes(try CodedBodies.zlibStream(original), as: .deflate, to: original)
        }
    }

    @Test("raw deflate labelled deflate is tolerated, in chunks of every length")
    func rawDeflateEveryChunkLength() throws {
        for original in [CodedBodies.repetitive, CodedBodies.random(count: 3000, seed: 3)] {
            Self.expectEveryChunkLengthDecodes(try CodedBodies.rawDeflate(original), as: .deflate, to: original)
        }
    }

    @Test("multi-member gzip decodes to the members' bodies in order, in chunks of every length")
    func multiMember() async throws {
        let first = CodedBodies.repetitive
        let second = CodedBodies.random(count: 2000, seed: 4)
        let third = Array("the end\n".utf8)
        var coded: [UInt8] = []
        for part in [first, second, third] {
            coded += try await CodedBodies.systemGzip(part)
        }
        Self.expectEveryChunkLengthDecodes(coded, as: .gzip, to: first + second + third)
    }

    @Test("bytes after the coded data are ignored, as gzip(1) and browsers ignore them")
    func trailingBytes() async throws {
        let original = CodedBodies.random(count: 500, seed: 5)
        let gzip = try await CodedBodies.systemGzip(original)
        for trailer in [[UInt8](repeating: 0, count: 8), Array("<!-- trailing garbage -->".utf8), [0x1f, 0x00]] {
            for chunkLength in [1, 7, gzip.count + trailer.count] {
                let decoded = try DecodedOutput.decode(gzip + trailer, as: .gzip, chunkLength: chunkLength)
                #expect(Bytes(decoded.bytes) == Bytes(original), "trailer \(trailer), chunks of \(chunkLength)")
            }
        }
        let zlib = try CodedBodies.zlibStream(original)
        let decoded = try DecodedOutput.decode(zlib + Array("garbage".utf8), as: .deflate, chunkLength: 3)
        #expect(Bytes(decoded.bytes) == Bytes(original))
    }

    @Test("an empty body, and gzip(1) of nothing, decode to nothing")
    func empty() async throws {
        for coding in ContentCoding.allCases {
            let decoded = try DecodedOutput.decode([], as: coding, chunkLength: 1)
            #expect(decoded.bytes.isEmpty && decoded.pieces == 0)
        }
        let gzipOfNothing = try await CodedBodies.systemGzip([])
        #expect(try DecodedOutput.decode(gzipOfNothing, as: .gzip, chunkLength: 1).bytes.isEmpty)
        #expect(try DecodedOutput.decode(try CodedBodies.zlibStream([]), as: .deflate, chunkLength: 1).bytes.isEmpty)
    }

    @Test("64 MiB of zeros from a 64 KiB gzip body come out in pieces of at most 64 KiB")
    func boundedPieces() async throws {
        let zeros = [UInt8](repeating: 0, count: 64 * 1024 * 1024)
        let coded = try await CodedBodies.systemGzip(zeros)
        #expect(coded.count < 100 * 1024)
        let decoder = ContentDecoder(coding: .gzip)
        // All of it in one chunk: the decoder must still hand it out piece by piece.
        decoder.feed(ByteBuffer(bytes: coded))
        var total = 0
        var largest = 0
        var checksum = crc32(0, nil, 0)
        while let piece = try decoder.next() {
            total += piece.readableBytes
            largest = max(largest, piece.readableBytes)
            piece.withUnsafeReadableBytes { bytes in
                checksum = crc32(checksum, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
            }
        }
        try decoder.finish()
        #expect(total == zeros.count)
        #expect(largest <= ContentDecoder.maximumPieceLength)
        #expect(largest == ContentDecoder.maximumPieceLength, "pieces are as large as allowed, not needlessly small")
        #expect(checksum == zeros.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// Decodes `coded` in chunks of every length from 1 to its whole size and expects `original`.
    private static func expectEveryChunkLengthDecodes(_ coded: [UInt8], as coding: ContentCoding, to original: [UInt8]) {
        for chunkLength in 1...coded.count {
            let decoded: DecodedOutput
            do {
                decoded = try DecodedOutput.decode(coded, as: coding, chunkLength: chunkLength)
            } catch {
                Issue.record("\(coding) in chunks of \(chunkLength): \(error)")
                return
            }
            // One failure says enough: stop at the first chunk length that fails.
            guard Bytes(decoded.bytes) == Bytes(original), decoded.largestPiece <= ContentDecoder.maximumPieceLength else {
                #expect(Bytes(decoded.bytes) == Bytes(original), "\(coding) in chunks of \(chunkLength)")
                #expect(decoded.largestPiece <= ContentDecoder.maximumPieceLength, "\(coding) in chunks of \(chunkLength)")
                return
            }
        }
    }
}
