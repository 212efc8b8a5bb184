import Foundation
import LarderTestSupport
import Testing

/// Range requests answered from cached full bodies, so that audio and video play offline.
@Suite("End to end: range requests", .serialized)
struct RangeTests {
    private static let length: Int64 = 10_000
    private static let lastModified = "Tue, 15 Nov 2022 08:12:31 GMT"

    @Test("with the origin stopped, first, middle, suffix and open ranges are 206 slices of the cached body; past the end is 416")
    func rangesFromCache() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/media.bin",
                TestResponse(
                    headers: [("Content-Type", "application/octet-stream"), ("ETag", "\"v1\""), ("Last-Modified", Self.lastModified)],
                    body: .generated(length: Self.length))
            )
            let full = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL)
            #expect(full.header("cache-status")?.contains("stored") == true)
            // The index row is committed just after the client has the body.
            await entriesStored(in: larder)
            try await origin.stop()

            let cases: [(String, Range<Int64>)] = [
                ("0-99", 0..<100), ("1000-1999", 1000..<2000), ("-500", 9500..<10000), ("9000-", 9000..<10000),
                ("9990-20000", 9990..<10000),
            ]
            for (range, expected) in cases {
                let answer = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-r", range])
                #expect(answer.status == 206, "range \(range)")
                #expect(
                    answer.header("content-range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(Self.length)",
                    "range \(range)")
                #expect(answer.header("content-length") == String(expected.count), "range \(range)")
                #expect(answer.header("cache-status")?.hasPrefix("larder; hit") == true)
                #expect(Bytes(answer.body) == Bytes(GeneratedBody.bytes(expected)), "range \(range)")
            }

            let unsatisfiable = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-r", "10000-"])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("content-range") == "bytes */10000")
            #expect(unsatisfiable.body.isEmpty)

            let multiple = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-r", "0-9,20-29"])
            #expect(multiple.status == 200, "several ranges are answered with the whole body")
            #expect(Bytes(multiple.body) == Bytes(GeneratedBody.bytes(0..<Self.length)))

            let invalid = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-H", "Range: bytes=x-y"])
            #expect(invalid.status == 200, "an invalid Range is ignored")
            #expect(invalid.header("accept-ranges") == "bytes")
            #expect(invalid.body.count == Int(Self.length))
        }
    }

    @Test("a body over the small-body limit (sent from its file): ranges, whole for HTTP/1.0 and Connection: close, HEAD")
    func largeBodyFromFile() async throws {
        let length: Int64 = 5 << 20
        try await withProxy { larder, origin in
            origin.setRoute("/video.mp4", TestResponse(headers: [("Content-Type", "video/mp4")], body: .generated(length: length)))
            let first = try await Curl.run(origin.url("/video.mp4"), proxy: larder.proxyURL)
            #expect(first.header("cache-status")?.contains("stored") == true)
            await entriesStored(in: larder)
            try await origin.stop()

            for (range, expected) in [("0-1048575", Int64(0)..<1_048_576), ("4000000-", 4_000_000..<length), ("-1", length - 1..<length)] {
                let answer = try await Curl.run(origin.url("/video.mp4"), proxy: larder.proxyURL, arguments: ["-r", range])
                #expect(answer.status == 206, "range \(range)")
                #expect(answer.header("content-range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)")
                #expect(answer.header("content-length") == String(expected.count))
                #expect(Bytes(answer.body) == Bytes(GeneratedBody.bytes(expected)), "range \(range)")
            }
            // The answer ends with the connection: every byte must be out before it closes.
            for arguments in [["--http1.0"], ["-H", "Connection: close"], []] {
                let whole = try await Curl.run(origin.url("/video.mp4"), proxy: larder.proxyURL, arguments: arguments)
                #expect(whole.exitCode == 0, "\(arguments): \(whole.stderr)")
                #expect(whole.status == 200)
                #expect(whole.header("content-length") == String(length))
                #expect(Bytes(whole.body) == Bytes(GeneratedBody.bytes(0..<length)), "\(arguments)")
            }
            let head = try await Curl.run(origin.url("/video.mp4"), proxy: larder.proxyURL, arguments: ["-I"])
            #expect(head.status == 200)
            #expect(head.header("content-length") == String(length))
        }
    }

    @Test("If-Range: a matching entity tag or date gives the range; a mismatch gives the whole body")
    func ifRange() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/media.bin",
                TestResponse(headers: [("ETag", "\"v1\""), ("Last-Modified", Self.lastModified)], body: .generated(length: Self.length)))
            _ = try await Curl.run(origin.url("/media.bin"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            try await origin.stop()

            for validator in ["\"v1\"", Self.lastModified] {
                let match = try await Curl.run(
                    origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-r", "10-19", "-H", "If-Range: \(validator)"])
                #expect(match.status == 206, "If-Range \(validator)")
                #expect(Bytes(match.body) == Bytes(GeneratedBody.bytes(10..<20)))
            }
            for validator in ["\"v2\"", "W/\"v1\"", "Wed, 16 Nov 2022 08:12:31 GMT"] {
                let mismatch = try await Curl.run(
                    origin.url("/media.bin"), proxy: larder.proxyURL, arguments: ["-r", "10-19", "-H", "If-Range: \(validator)"])
                #expect(mismatch.status == 200, "If-Range \(validator)")
                #expect(mismatch.header("content-range") == nil)
                #expect(Bytes(mismatch.body) == Bytes(GeneratedBody.bytes(0..<Self.length)))
            }
        }
    }

    @Test("a range request that misses forwards its range; an origin that ignores it sends the whole, which is stored and cut")
    func rangeMiss() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/song.ogg", TestResponse(headers: [("Content-Type", "audio/ogg")], body: .generated(length: 300_000)))
            let answer = try await Curl.run(origin.url("/song.ogg"), proxy: larder.proxyURL, arguments: ["-r", "200000-200999"])
            #expect(answer.status == 206)
            #expect(answer.header("content-range") == "bytes 200000-200999/300000")
            #expect(answer.header("cache-status")?.contains("stored") == true)
            #expect(Bytes(answer.body) == Bytes(GeneratedBody.bytes(200_000..<201_000)))
            let upstream = try #require(origin.requests("/song.ogg").first)
            #expect(upstream.header("range") == "bytes=200000-200999", "nothing complete is stored to cut it from")

            let unsatisfiable = try await Curl.run(origin.url("/never.ogg"), proxy: larder.proxyURL, arguments: ["-r", "0-"])
            #expect(unsatisfiable.status == 404, "a 404 is not a body to take a range of")

            await entriesStored(in: larder)
            try await origin.stop()
            let whole = try await Curl.run(origin.url("/song.ogg"), proxy: larder.proxyURL)
            #expect(whole.status == 200)
            #expect(whole.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(Bytes(whole.body) == Bytes(GeneratedBody.bytes(0..<300_000)))
        }
    }

    @Test("a precached demo sound seeks offline: curl -r 1000-1999 gets exactly those bytes")
    func demoAudioSeeks() async throws {
        let origin = try await TestOrigin.start()
        origin.serveDirectory(DemoSite.root)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = try DemoSite.gamesList(for: origin.baseURL, in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 0)
        try await origin.stop()

        let assets = DemoSite.root + "/games/flipart/assets"
        let sound = try #require(
            try FileManager.default.contentsOfDirectory(atPath: assets).first { $0.hasPrefix("click-") && $0.hasSuffix(".wav") })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: assets + "/" + sound)))
        try #require(bytes.count >= 2000)

        let larder = try await LarderProcess(cacheDirectory: cache)
        let answer = try await Curl.run(
            origin.url("/games/flipart/assets/" + sound), proxy: larder.proxyURL, arguments: ["-r", "1000-1999"])
        #expect(answer.status == 206)
        #expect(answer.header("content-range") == "bytes 1000-1999/\(bytes.count)")
        #expect(answer.header("cache-status")?.contains("detail=precached") == true)
        #expect(Bytes(answer.body) == Bytes(bytes[1000..<2000]))
        await larder.stop()
    }

    @Test("an origin's own 416 is relayed whole, and the next answer on the connection follows it cleanly")
    func originsOwnUnsatisfiable() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/short.bin",
                TestResponse(status: 416, headers: [("Content-Range", "bytes */10")], body: .chunked([Array("no such range".utf8)])))
            origin.setRoute("/next.txt", .text("next"))
            // Nothing stored: the client's range goes upstream as it is, and the origin says 416.
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            let host = "Host: 127.0.0.1:\(origin.port)"
            try connection.send(
                "GET \(origin.url("/short.bin")) HTTP/1.1\r\n\(host)\r\nRange: bytes=20-\r\n\r\n"
                    + "GET \(origin.url("/next.txt")) HTTP/1.1\r\n\(host)\r\nConnection: close\r\n\r\n")
            let response = await connection.readToEnd()
            // The origin's body in chunks of its own, then the chunked terminator, then the next answer.
            #expect(response.hasPrefix("HTTP/1.1 416"), "\(response.debugDescription)")
            #expect(response.contains("\r\n\r\nd\r\nno such range\r\n0\r\n\r\nHTTP/1.1 200"), "\(response.debugDescription)")
            #expect(response.hasSuffix("\r\n\r\nnext"), "\(response.debugDescription)")
        }
    }
}
