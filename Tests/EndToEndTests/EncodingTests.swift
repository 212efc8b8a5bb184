import Foundation
import LarderTestSupport
import Testing

/// `bytes` compressed by the system's gzip(1).
func gzipped(_ bytes: [UInt8]) async throws -> [UInt8] {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString)").path
    defer {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".gz")
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-n", "-f", path]
    try process.run()
    await onThread { process.waitUntilExit() }
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
}

@Suite("End to end: Accept-Encoding never splits or misses what is stored")
struct EncodingTests {
    private static let text = Array(String(repeating: "Larder stores one representation and decodes it. ", count: 400).utf8)

    /// An origin that honours Accept-Encoding: gzip when asked, identity otherwise, with Vary.
    private static func negotiating(_ gzip: [UInt8]) -> TestResponse {
        .dynamic { request in
            let wantsGzip = request.header("accept-encoding")?.contains("gzip") == true
            return TestResponse(
                headers: [
                    ("Content-Type", "text/plain"), ("Cache-Control", "max-age=3600"), ("Vary", "Accept-Encoding"), ("ETag", "\"t1\""),
                ] + (wantsGzip ? [("Content-Encoding", "gzip")] : []),
                body: .bytes(wantsGzip ? gzip : Self.text)
            )
        }
    }

    @Test("a client without Accept-Encoding gets the stored gzip decoded; a gzip client gets it as stored; one origin request")
    func identityClientThenGzipClient() async throws {
        let gzip = try await gzipped(Self.text)
        try await withProxy { larder, origin in
            origin.setRoute("/text", Self.negotiating(gzip))
            let plain = try await Curl.run(origin.url("/text"), proxy: larder.proxyURL)
            #expect(plain.status == 200)
            #expect(Bytes(plain.body) == Bytes(Self.text))
            #expect(plain.header("content-encoding") == nil)
            #expect(plain.header("etag") == "W/\"t1\"")
            // Larder asked for gzip itself, whatever the client sent.
            #expect(origin.requests("/text").first?.header("accept-encoding") == "gzip")
            await entriesStored(in: larder)

            // The stored body is the gzip one.
            let bodies = filesUnder(larder.cacheDirectory + "/bodies")
            let stored = try Data(contentsOf: URL(fileURLWithPath: larder.cacheDirectory + "/bodies/" + bodies[0]))
            #expect(Bytes([UInt8](stored)) == Bytes(gzip))

            let raw = try await Curl.run(
                origin.url("/text"), proxy: larder.proxyURL, arguments: ["-H", "Accept-Encoding: gzip, deflate, br"])
            #expect(raw.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(raw.header("content-encoding") == "gzip")
            #expect(raw.header("content-length") == String(gzip.count))
            #expect(Bytes(raw.body) == Bytes(gzip))

            let again = try await Curl.run(origin.url("/text"), proxy: larder.proxyURL, arguments: ["-H", "Accept-Encoding: identity"])
            #expect(again.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(Bytes(again.body) == Bytes(Self.text))
            #expect(origin.requestCount("/text") == 1)

            // Offline too, and a range of a decoded answer is that range, decoded no further.
            try await origin.stop()
            let offline = try await Curl.run(
                origin.url("/text"), proxy: larder.proxyURL, arguments: ["-H", "Cache-Control: max-age=0", "-r", "0-9"])
            #expect(offline.status == 206)
            #expect(offline.header("content-range") == "bytes 0-9/*")
            #expect(Bytes(offline.body) == Bytes(Array(Self.text[0..<10])))
        }
    }

    @Test("an identity entry (as the precache runner stores) serves a browser that asks for gzip, br; a gzip-only browser too")
    func identityEntryServesEveryone() async throws {
        try await withProxy { larder, origin in
            // An origin that never compresses, as for the runner's fetches.
            origin.setRoute(
                "/plain",
                .text(
                    String(decoding: Self.text, as: UTF8.self), headers: [("Cache-Control", "max-age=3600"), ("Vary", "Accept-Encoding")]))
            _ = try await Curl.run(origin.url("/plain"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            for acceptEncoding in ["gzip, deflate, br, zstd", "gzip", "br"] {
                let response = try await Curl.run(
                    origin.url("/plain"), proxy: larder.proxyURL, arguments: ["-H", "Accept-Encoding: \(acceptEncoding)"])
                #expect(response.header("cache-status")?.hasPrefix("larder; hit") == true, "\(acceptEncoding)")
                #expect(Bytes(response.body) == Bytes(Self.text))
            }
            #expect(origin.requestCount("/plain") == 1)
        }
    }

    @Test("curl --compressed through the proxy on a miss gets gzip it can decode; a plain curl gets it decoded on the fly")
    func decodingWhileRelaying() async throws {
        let gzip = try await gzipped(Self.text)
        try await withProxy { larder, origin in
            // no-store: nothing is stored, so both answers are relayed from upstream.
            origin.setRoute(
                "/live",
                .dynamic { request in
                    let wantsGzip = request.header("accept-encoding")?.contains("gzip") == true
                    return TestResponse(
                        headers: [("Cache-Control", "no-store")] + (wantsGzip ? [("Content-Encoding", "gzip")] : []),
                        body: .bytes(wantsGzip ? gzip : Self.text))
                })
            let compressed = try await Curl.run(origin.url("/live"), proxy: larder.proxyURL, arguments: ["--compressed"])
            #expect(Bytes(compressed.body) == Bytes(Self.text))
            #expect(compressed.header("content-encoding") == "gzip")
            let plain = try await Curl.run(origin.url("/live"), proxy: larder.proxyURL)
            #expect(plain.header("content-encoding") == nil)
            #expect(plain.header("content-length") == nil)
            #expect(Bytes(plain.body) == Bytes(Self.text))
            #expect(origin.requestCount("/live") == 2)
        }
    }
}
