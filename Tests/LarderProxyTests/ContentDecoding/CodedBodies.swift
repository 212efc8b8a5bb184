import CZlib
import Foundation
import LarderHTTP
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderProxy

/// Bodies to code and decode, and the coders the decoder is checked against.
enum CodedBodies {
    /// `count` pseudo-random bytes, the same for the same seed (SplitMix64).
    static func random(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            withUnsafeBytes(of: mixed) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// About 100 KB that compresses to about 2 KB: a random kilobyte repeated, each copy numbered.
    /// More than one piece decoded, few enough coded bytes to try every chunk length.
    static let repetitive: [UInt8] = {
        let block = random(count: 1024, seed: 7)
        return (0..<100).flatMap { copy in Array("copy \(copy)\n".utf8) + block }
    }()

    /// Compresses with the system gzip(1), on a thread of its own (never blocking the cooperative
    /// pool). The input goes through a file, so the header carries its name and time (FNAME, MTIME).
    static func systemGzip(_ bytes: [UInt8]) async throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("larder-gzip-\(UUID().uuidString).txt")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Int32, [UInt8]), any Error>) in
            let thread = Thread {
                let process = ChildProcess()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["gzip", "-c", file.path]
                let pipe = Pipe()
                process.standardOutput = pipe
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, [UInt8](output)))
            }
            thread.start()
        }
        try #require(status == 0, "gzip exited with \(status)")
        return output
    }

    /// zlib's own `compress2`: a zlib stream (RFC 1950), what `Content-Encoding: deflate` means.
    static func zlibStream(_ bytes: [UInt8]) throws -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let result = compress2(&output, &length, bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
        try #require(result == Z_OK, "compress2 failed (\(result))")
        return Array(output.prefix(Int(length)))
    }

    /// The raw deflate stream (RFC 1951) inside a zlib stream: without the two-byte header and the
    /// four-byte Adler-32 trailer.
    static func rawDeflate(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(try self.zlibStream(bytes).dropFirst(2).dropLast(4))
    }
}

/// What decoding a whole body produced.
struct DecodedOutput {
    /// The decoded bytes, in order.
    var bytes: [UInt8] = []
    /// How many pieces they came in.
    var pieces = 0
    /// The longest piece.
    var largestPiece = 0

    /// Decodes `coded` fed in chunks of `chunkLength` bytes, draining after each chunk, then finishes.
    static func decode(_ coded: [UInt8], as coding: ContentCoding, chunkLength: Int) throws -> DecodedOutput {
        let decoder = ContentDecoder(coding: coding)
        var output = DecodedOutput()
        for start in stride(from: 0, to: coded.count, by: chunkLength) {
            decoder.feed(ByteBuffer(bytes: coded[start..<min(start + chunkLength, coded.count)]))
            while let piece = try decoder.next() {
                output.bytes.append(contentsOf: piece.readableBytesView)
                output.pieces += 1
                output.largestPiece = max(output.largestPiece, piece.readableBytes)
            }
        }
        try decoder.finish()
        return output
    }
}
