import LarderHTTP
import NIOCore
import Testing

@testable import LarderProxy

@Suite("ContentDecoder: corrupt data and truncated streams are errors that name the coding")
struct ContentDecoderErrorTests {
    @Test("text labelled gzip is not gzip data")
    func notGzip() {
        let error = Self.decodingError(Array("<html>hello</html>".utf8), as: .gzip)
        #expect(error == ContentDecodingError(coding: .gzip, reason: .corrupt("not gzip data")))
        #expect(error?.description == "gzip body is corrupt: not gzip data")
    }

    @Test("a gzip body whose CRC-32 or length does not match its data")
    func gzipChecks() async throws {
        let coded = try await CodedBodies.systemGzip(CodedBodies.repetitive)
        var badChecksum = coded
        badChecksum[coded.count - 8] ^= 0xff
        #expect(Self.decodingError(badChecksum, as: .gzip) == ContentDecodingError(coding: .gzip, reason: .corrupt("incorrect data check")))
        var badLength = coded
        badLength[coded.count - 1] ^= 0x01
        #expect(Self.decodingError(badLength, as: .gzip) == ContentDecodingError(coding: .gzip, reason: .corrupt("incorrect length check")))
    }

    @Test("a deflate body with a reserved block type, a wrong Adler-32, or a preset dictionary")
    func deflateCorrupt() throws {
        var badBlock = try CodedBodies.zlibStream(CodedBodies.repetitive)
        badBlock[2] = 0x07  // final block of the reserved type 3
        #expect(
            Self.decodingError(badBlock, as: .deflate) == ContentDecodingError(coding: .deflate, reason: .corrupt("invalid block type")))

        var badChecksum = try CodedBodies.zlibStream(CodedBodies.repetitive)
        badChecksum[badChecksum.count - 1] ^= 0xff
        let error = Self.decodingError(badChecksum, as: .deflate)
        #expect(error == ContentDecodingError(coding: .deflate, reason: .corrupt("incorrect data check")))
        #expect(error?.description == "deflate body is corrupt: incorrect data check")

        // A zlib header with FDICT set, then a dictionary id: HTTP has no way to supply the dictionary.
        let presetDictionary: [UInt8] = [0x78, 0xbb, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00]
        #expect(
            Self.decodingError(presetDictionary, as: .deflate)
                == ContentDecodingError(coding: .deflate, reason: .corrupt("needs a preset dictionary")))
    }

    @Test("after an error the decoder keeps reporting it")
    func errorIsSticky() throws {
        let decoder = ContentDecoder(coding: .gzip)
        decoder.feed(ByteBuffer(string: "plain text"))
        let expected = ContentDecodingError(coding: .gzip, reason: .corrupt("not gzip data"))
        #expect(throws: expected) { try decoder.next() }
        decoder.feed(ByteBuffer(bytes: [0x1f, 0x8b]))
        #expect(throws: expected) { try decoder.next() }
        #expect(throws: expected) { try decoder.finish() }
    }

    @Test("every proper prefix of a gzip, zlib or raw deflate body is truncated at finish()")
    func truncated() async throws {
        let original = CodedBodies.random(count: 600, seed: 9)
        let bodies: [(ContentCoding, [UInt8])] = [
            (.gzip, try await CodedBodies.systemGzip(original)),
            (.deflate, try CodedBodies.zlibStream(original)),
            (.deflate, try CodedBodies.rawDeflate(original)),
        ]
        for (coding, coded) in bodies {
            for length in 1..<coded.count {
                let decoder = ContentDecoder(coding: coding)
                decoder.feed(ByteBuffer(bytes: coded.prefix(length)))
                do {
                    while try decoder.next() != nil {}
                } catch {
                    Issue.record("\(coding), \(length) of \(coded.count) bytes: \(error) before finish()")
                    return
                }
                #expect(throws: ContentDecodingError(coding: coding, reason: .truncated), "\(coding), \(length) of \(coded.count) bytes") {
                    try decoder.finish()
                }
            }
        }
    }

    @Test("a gzip body cut inside its second member is truncated, even one byte into it")
    func truncatedSecondMember() async throws {
        let first = try await CodedBodies.systemGzip(Array("first member\n".utf8))
        let second = try await CodedBodies.systemGzip(Array("second member\n".utf8))
        for length in 1..<second.count {
            let decoder = ContentDecoder(coding: .gzip)
            decoder.feed(ByteBuffer(bytes: first + second.prefix(length)))
            while try decoder.next() != nil {}
            #expect(throws: ContentDecodingError(coding: .gzip, reason: .truncated), "\(length) bytes of the second member") {
                try decoder.finish()
            }
        }
    }

    /// The error decoding `coded` (in one chunk, drained, then finished) throws; nil when none does.
    private static func decodingError(_ coded: [UInt8], as coding: ContentCoding) -> ContentDecodingError? {
        do {
            _ = try DecodedOutput.decode(coded, as: coding, chunkLength: coded.count)
            return nil
        } catch {
            return error as? ContentDecodingError
        }
    }
}
