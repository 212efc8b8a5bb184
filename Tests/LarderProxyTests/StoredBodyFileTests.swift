import Foundation
import LarderHTTP
import NIOCore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// Which stored body files are sent by `sendfile`, and what the ordinary path writes for them.
@Suite("Stored body files: opened only at their indexed size, sent by sendfile except through TLS")
struct StoredBodyFileTests {
    @Test("opens a regular file of the indexed size only; the range says which bytes; a file cut short is no longer intact")
    func opening() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("body-file-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/body"
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))

        let whole = try #require(StoredBodyFile.open(path, size: 10_000))
        #expect(whole.region.readerIndex == 0)
        #expect(whole.region.endIndex == 10_000)
        let part = try #require(StoredBodyFile.open(path, size: 10_000, range: 100..<250))
        #expect(part.region.readerIndex == 100)
        #expect(part.region.readableBytes == 150)
        #expect(part.isIntact)

        #expect(StoredBodyFile.open(path, size: 9_999) == nil, "not the indexed size")
        #expect(StoredBodyFile.open(directory + "/missing", size: 10_000) == nil)
        #expect(StoredBodyFile.open(directory, size: 4096) == nil, "not a regular file")

        #expect(truncate(path, 200) == 0)
        #expect(!part.isIntact, "bytes of the range are gone")
        #expect(StoredBodyFile.open(path, size: 200, range: 0..<200)?.isIntact == true)
    }

    @Test("the ordinary path sends a large body's range from its file; through TLS, the same bytes as buffers")
    func ordinaryPathParts() async throws {
        let fixture = try ImmediateHitsTests.Fixture()
        let body = String(repeating: "0123456789abcdef", count: 16_384)  // 256 KiB, over the small-body limit
        let url = "http://site.example/large.bin"
        try await fixture.store(url, body: body)
        let request = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: url, headers: HTTPHeaders([("Host", "site.example"), ("Range", "bytes=1000-200999")]))
        let expected = String(body.dropFirst(1000).prefix(200_000))

        let plain = try await fixture.ordinaryParts(request)
        guard case .http(.head(let head)) = plain.first else {
            Issue.record("no head first: \(plain)")
            return
        }
        #expect(head.status == .partialContent)
        #expect(head.headers["content-range"] == ["bytes 1000-200999/262144"])
        #expect(head.headers["content-length"] == ["200000"])
        #expect(plain.count == 3)
        guard case .file(let file, _) = plain[1] else {
            Issue.record("the body is not sent from its file: \(plain[1])")
            return
        }
        #expect(file.range == 1000..<201_000)
        #expect(try ImmediateHitsTests.Fixture.read(file) == expected)
        guard case .http(.end(nil)) = plain[2] else {
            Issue.record("no end: \(plain[2])")
            return
        }

        let throughTLS = try await fixture.ordinaryParts(request, sendfile: false)
        var bytes = ByteBuffer()
        for part in throughTLS {
            switch part {
            case .file:
                Issue.record("a file region written through TLS")
            case .http(.body(.byteBuffer(var buffer))):
                bytes.writeBuffer(&buffer)
            default:
                break
            }
        }
        #expect(String(buffer: bytes) == expected)
    }
}
