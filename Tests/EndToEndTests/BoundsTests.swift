import Foundation
import LarderTestSupport
import Synchronization
import Testing

/// What one response, one URL or one link can cost (docs/SERVING.md, "Bounds"): a body too large
/// for the store is relayed but not stored, a route's regex answers in linear time, a header
/// value with a line break is not relayed, and a range of a body Larder decodes is decoded no
/// further than the range, and answered whole when it starts far in.
@Suite("End to end: bounds on one response, one URL")
struct BoundsTests {
    /// The largest size `tmp/` under `directory` reached while `work` ran, polled every 5 ms.
    private static func largestTemporary<T: Sendable>(in directory: String, during work: () async throws -> T) async throws -> (
        result: T, largest: Int64
    ) {
        let largest = Mutex(Int64(0))
        let polling = Task {
            while !Task.isCancelled {
                let size = filesUnder(directory).reduce(Int64(0)) { total, file in
                    let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + file)
                    return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
                }
                largest.withLock { $0 = max($0, size) }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let result = try await work()
        polling.cancel()
        _ = await polling.value
        return (result, largest.withLock { $0 })
    }

    @Test(
        "a 40 MiB chunked body under --max-size 8MiB reaches the client whole, is not stored, and tmp/ stays within the 4 MiB entry limit")
    func endlessBodyNotStored() async throws {
        let piece = Array(repeating: UInt8(ascii: "x"), count: 64 << 10)
        let pieces = 640
        try await withProxy(arguments: ["--max-size", "8MiB"]) { larder, origin in
            origin.setRoute(
                "/endless",
                TestResponse(
                    headers: [("Content-Type", "application/octet-stream"), ("Cache-Control", "max-age=600")],
                    body: .chunked(Array(repeating: piece, count: pieces)),
                    faults: [.delayChunks(.milliseconds(1))]))
            let (response, largest) = try await Self.largestTemporary(in: larder.cacheDirectory + "/tmp") {
                try await Curl.run(origin.url("/endless"), proxy: larder.proxyURL)
            }
            #expect(response.exitCode == 0)
            #expect(response.body.count == pieces * piece.count)
            #expect(response.body.allSatisfy { $0 == UInt8(ascii: "x") })
            let limit: Int64 = (8 << 20) / 2
            #expect(largest <= limit, "tmp/ reached \(largest) bytes")
            #expect(await logMentions(larder, "not stored: the body is over the per-entry limit"))
            #expect(filesUnder(larder.cacheDirectory + "/tmp").isEmpty, "the temporary body is removed")
            let again = try await Curl.run(origin.url("/endless"), proxy: larder.proxyURL)
            #expect(again.header("cache-status")?.contains("hit") == false)
            #expect(origin.requestCount("/endless") == 2)

            // Under the limit, a body is stored as before.
            origin.setRoute(
                "/small",
                TestResponse(headers: [("Cache-Control", "max-age=600")], body: .chunked(Array(repeating: piece, count: 16))))
            #expect(try await Curl.run(origin.url("/small"), proxy: larder.proxyURL).header("cache-status")?.contains("stored") == true)
            await entriesStored(in: larder)
            let hit = try await Curl.run(origin.url("/small"), proxy: larder.proxyURL)
            #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(hit.body.count == 16 * piece.count)
        }
    }

    @Test("a Content-Length over the entry limit is not stored from the start, and says so in Cache-Status")
    func declaredLengthOverLimit() async throws {
        try await withProxy(arguments: ["--max-size", "8MiB"]) { larder, origin in
            let length: Int64 = 5 << 20
            origin.setRoute("/big.bin", TestResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(length: length)))
            let response = try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL)
            #expect(response.status == 200)
            #expect(Bytes(response.body) == Bytes(GeneratedBody.bytes(0..<length)))
            let cacheStatus = response.header("cache-status") ?? ""
            #expect(cacheStatus.contains("detail=not-stored-too-large"), "\(cacheStatus)")
            #expect(!cacheStatus.contains("; stored"))
            #expect(await logMentions(larder, "not stored: the body is over the per-entry limit"))
            #expect(try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL).header("cache-status")?.contains("hit") == false)
        }
    }

    @Test("a route regex (a+)+$ cannot stall the proxy: a URL of 30 a's is answered, and so is another client's hit")
    func regexCannotStall() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"routes": [{"regex": "(a+)+$", "strategy": "network-first"}]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        try await withProxy(arguments: ["--config", config]) { larder, origin in
            origin.setRoute("/app.js", .text("console.log(1)", headers: [("Cache-Control", "max-age=3600")]))
            _ = try await Curl.run(origin.url("/app.js"), proxy: larder.proxyURL)
            await entriesStored(in: larder)

            let hostilePath = "/" + String(repeating: "a", count: 30) + "b"
            origin.setRoute(hostilePath, .text("ok"))
            // Backtracking, this match would take 2^30 steps on the connection's event loop.
            async let hostile = Curl.run(origin.url(hostilePath), proxy: larder.proxyURL, timeout: 20)
            try await Task.sleep(for: .milliseconds(200))
            let hit = try await Curl.run(origin.url("/app.js"), proxy: larder.proxyURL, timeout: 20)
            #expect(hit.status == 200)
            #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
            let answered = try await hostile
            #expect(answered.status == 200)
            #expect(answered.text == "ok")
        }
    }

    @Test("a config whose route regex needs backtracking is refused at start, naming the file, key and construct")
    func regexRefusedAtStart() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"routes": [{"regex": "^https://a\\.example/(?!admin)", "strategy": "cache-first"}]}"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        let result = try await LarderCLI.run(
            ["serve", "--port", "0", "--cache-dir", directory + "/cache", "--config", config], timeout: .seconds(60))
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("\(config):1: routes[0].regex:"), "\(result.stderr)")
        #expect(result.stderr.contains("lookahead (?=…) and (?!…) is not supported (at character 21)"), "\(result.stderr)")
    }

    @Test(
        "a route regex too large to match cheaply (933 characters, .*a 300 times) is refused at start, naming the file and key (issue 41, finding 7)"
    )
    func largeRegexRefusedAtStart() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pattern = "^http://h/r/" + String(repeating: ".*a", count: 300)
        try #"{"routes": [{"regex": "\#(pattern)", "strategy": "network-first"}]}"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        let result = try await LarderCLI.run(
            ["serve", "--port", "0", "--cache-dir", directory + "/cache", "--config", config], timeout: .seconds(60))
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(config):1: routes[0].regex:"), "\(result.stderr)")
        #expect(result.stderr.contains("too large"), "\(result.stderr)")
    }

    @Test(
        "requests to 300 unreachable origins (a page's <img> tags) leave /dev/offline.json and /metrics listing a bounded number (issue 41, finding 5)"
    )
    func unreachableOriginsBounded() async throws {
        try await withProxy { larder, _ in
            // Each URL its own origin, all refused at once (port 9 on loopback addresses).
            let list = LarderProcess.temporaryDirectory() + "-urls.txt"
            defer { try? FileManager.default.removeItem(atPath: list) }
            let urls = (0..<300).map { "url = \"http://127.0.\($0 / 200).\($0 % 200 + 2):9/img.png\"\noutput = /dev/null\n" }
            try urls.joined().write(toFile: list, atomically: true, encoding: .utf8)
            _ = try await LarderCLI.run(
                ["-s", "--parallel", "--parallel-max", "16", "-x", larder.proxyURL, "--config", list], executable: "/usr/bin/curl",
                timeout: .seconds(120))

            let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])
            let upstream = json["upstream"] as? [Any] ?? (json["upstream"] as? [String: Any]).map { Array($0.values) } ?? []
            #expect(!upstream.isEmpty, "the failing origins are reported")
            #expect(upstream.count <= 100, "\(upstream.count) upstreams listed")
            let metrics = try await Curl.run(larder.proxyURL + "/metrics", proxy: nil)
            let labelled = metrics.text.split(separator: "\n").filter { $0.hasPrefix("larder_upstream_consecutive_failures{") }
            #expect(!labelled.isEmpty)
            #expect(labelled.count <= 100, "\(labelled.count) origins labelled in /metrics")
        }
    }

    @Test("an upstream header value with a bare CR is dropped, never relayed; the other fields go on")
    func bareCarriageReturnDropped() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/moved",
                TestResponse(
                    status: 302,
                    headers: [("Location", "/next\rSet-Cookie: injected=1"), ("Set-Cookie", "kept=1"), ("X-After", "yes")]))
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send("GET \(origin.url("/moved")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nConnection: close\r\n\r\n")
            let response = await connection.readToEnd()
            let head = response.components(separatedBy: "\r\n\r\n")[0]
            #expect(!head.contains("injected"), "\(head.debugDescription)")
            #expect(!head.lowercased().contains("location:"))
            #expect(!head.replacingOccurrences(of: "\r\n", with: "").contains("\r"), "no bare CR")
            if try await fetchesWithNIO(larder) {
                // SwiftNIO's parser refuses the whole response (NIOUpstream's documented
                // difference), which Larder answers as an origin it could not read.
                #expect(head.hasPrefix("HTTP/1.1 502"), "\(head.debugDescription)")
            } else {
                #expect(head.hasPrefix("HTTP/1.1 302"), "\(head.debugDescription)")
                #expect(head.contains("kept=1"))
                #expect(head.lowercased().contains("x-after: yes"))
                #expect(await logMentions(larder, "dropped upstream header fields holding a CR, LF or NUL byte"))
            }
        }
    }

    @Test("a range of a stored gzip body decoded for the client is a 206 of that range; past the end a 416; to the end the whole")
    func decodedRange() async throws {
        let text = Array((0..<40_000).map { "line \($0) of a long decoded text\n" }.joined().utf8)
        let gzip = try await gzipped(text)
        try await withProxy { larder, origin in
            origin.setRoute(
                "/long.txt",
                TestResponse(
                    headers: [("Content-Type", "text/plain"), ("Cache-Control", "max-age=3600"), ("Content-Encoding", "gzip")],
                    body: .bytes(gzip)))
            let identity = ["-H", "Accept-Encoding: identity"]
            _ = try await Curl.run(origin.url("/long.txt"), proxy: larder.proxyURL, arguments: identity)
            await entriesStored(in: larder)

            let part = try await Curl.run(origin.url("/long.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "1000-1999"])
            #expect(part.status == 206)
            #expect(part.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(part.header("content-range") == "bytes 1000-1999/*")
            #expect(part.header("content-length") == "1000")
            #expect(Bytes(part.body) == Bytes(Array(text[1000..<2000])))

            let tail = try await Curl.run(
                origin.url("/long.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "\(text.count - 10)-\(text.count + 50)"])
            #expect(tail.status == 206)
            #expect(tail.header("content-range") == "bytes \(text.count - 10)-\(text.count - 1)/\(text.count)")
            #expect(Bytes(tail.body) == Bytes(Array(text.suffix(10))))

            let past = try await Curl.run(
                origin.url("/long.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "\(text.count + 5)-\(text.count + 9)"])
            #expect(past.status == 416)
            #expect(past.header("content-range") == "bytes */\(text.count)")

            let toEnd = try await Curl.run(origin.url("/long.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "100-"])
            #expect(toEnd.status == 200)
            #expect(Bytes(toEnd.body) == Bytes(text))
            #expect(origin.requestCount("/long.txt") == 1)
        }
    }

    @Test("a range of a decoded body starting past 4 MiB is answered with the whole body, so the work is what is sent")
    func decodedRangeBeyondReach() async throws {
        // 6 MB decoded from a few kilobytes: a client asking a few bytes far in must not
        // make Larder decode up to them for nothing sent.
        let text = Array((0..<200_000).map { "line \($0 % 10) of a long decoded text\n" }.joined().utf8)
        let gzip = try await gzipped(text)
        try await withProxy { larder, origin in
            origin.setRoute(
                "/far.txt",
                TestResponse(
                    headers: [("Content-Type", "text/plain"), ("Cache-Control", "max-age=3600"), ("Content-Encoding", "gzip")],
                    body: .bytes(gzip)))
            let identity = ["-H", "Accept-Encoding: identity"]
            _ = try await Curl.run(origin.url("/far.txt"), proxy: larder.proxyURL, arguments: identity)
            await entriesStored(in: larder)

            let far = try await Curl.run(origin.url("/far.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "5000000-5000099"])
            #expect(far.status == 200)
            #expect(far.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(far.header("content-range") == nil)
            #expect(Bytes(far.body) == Bytes(text))

            let near = try await Curl.run(origin.url("/far.txt"), proxy: larder.proxyURL, arguments: identity + ["-r", "1000-1099"])
            #expect(near.status == 206)
            #expect(Bytes(near.body) == Bytes(Array(text[1000..<1100])))
            #expect(origin.requestCount("/far.txt") == 1)
        }
    }
}
