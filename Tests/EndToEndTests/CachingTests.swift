import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// The real `larder` binary with `curl -x`: storing, serving from the cache when the origin is
/// gone, offline mode, and never serving a broken body.
@Suite("End to end: caching and disconnected operation", .serialized)
struct CachingTests {
    @Test("a page fetched online is stored, and served with identical bytes once the origin is down")
    func onlineThenOriginDown() async throws {
        try await withProxy { larder, origin in
            let page = "<!doctype html><title>hello</title><p>cached page " + String(repeating: "x", count: 5000)
            origin.setRoute(
                "/page.html",
                .text(page, contentType: "text/html", headers: [("Cache-Control", "max-age=0"), ("Set-Cookie", "session=secret")]))

            let first = try await Curl.run(origin.url("/page.html"), proxy: larder.proxyURL)
            #expect(first.exitCode == 0)
            #expect(first.status == 200)
            #expect(first.text == page)
            #expect(first.header("cache-status")?.contains("fwd=uri-miss") == true)
            #expect(first.header("cache-status")?.contains("stored") == true)
            #expect(first.header("via")?.contains("larder") == true)

            // On disk: an index and one content-addressed body with exactly these bytes (committed
            // just after the client has its answer).
            let bodies = await filesAppearing(under: larder.cacheDirectory + "/bodies")
            await entriesStored(in: larder)
            #expect(bodies.count == 1)
            let body = try #require(bodies.first)
            let stored = try Data(contentsOf: URL(fileURLWithPath: larder.cacheDirectory + "/bodies/" + body))
            #expect([UInt8](stored) == Array(page.utf8))

            try await origin.stop()
            let second = try await Curl.run(origin.url("/page.html"), proxy: larder.proxyURL)
            #expect(second.status == 200)
            #expect(Bytes(second.body) == Bytes(first.body))
            #expect(second.header("cache-status")?.contains("hit") == true)
            #expect(second.header("cache-status")?.contains("detail=upstream-unreachable") == true)
            #expect(second.header("age") != nil)
            #expect(second.header("content-type") == "text/html; charset=utf-8")
            #expect(second.header("set-cookie") == nil, "Set-Cookie must never be replayed from the cache")
        }
    }

    @Test("a fresh 300 KB asset is answered from the cache whole, again and again (from its file, by sendfile)")
    func largeFreshHits() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 300_000
            origin.setRoute("/level.pak", TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .generated(length: length)))
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            #expect(Bytes(try await Curl.run(origin.url("/level.pak"), proxy: larder.proxyURL).body) == expected)
            await entriesStored(in: larder)
            // The first hit reads the index; the later ones are answered on the event loop.
            for _ in 0..<3 {
                let hit = try await Curl.run(origin.url("/level.pak"), proxy: larder.proxyURL)
                #expect(hit.status == 200)
                #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
                #expect(hit.header("content-length") == String(length))
                #expect(Bytes(hit.body) == expected)
            }
            #expect(origin.requestCount("/level.pak") == 1)
        }
    }

    @Test("the fragment is not part of the key: runtime.html#a=1 and runtime.html are one entry")
    func fragmentIgnored() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/runtime.html", .text("runtime", contentType: "text/html"))
            // curl drops fragments itself, so send the request line by hand.
            let connection = try RawConnection(host: "127.0.0.1", port: larder.port)
            try connection.send(
                "GET \(origin.url("/runtime.html"))#gameplay=1a2b&bg=FFEEBB HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(await connection.readToEnd().contains("stored"))
            try await origin.stop()
            let cached = try await Curl.run(origin.url("/runtime.html"), proxy: larder.proxyURL)
            #expect(cached.text == "runtime")
            #expect(cached.header("cache-status")?.contains("hit") == true)
        }
    }

    @Test("--offline: a miss is a 504 page naming the URL, with no upstream contact; a hit is served")
    func offlineMode() async throws {
        let cacheDirectory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cacheDirectory) }
        let origin = try await TestOrigin.start()
        origin.setRoute("/seen.css", .text("body{color:red}", contentType: "text/css"))
        let online = try await LarderProcess(cacheDirectory: cacheDirectory)
        _ = try await Curl.run(origin.url("/seen.css"), proxy: online.proxyURL)
        await online.stop()
        origin.resetRecords()

        let offline = try await LarderProcess(serve: ["--offline"], cacheDirectory: cacheDirectory)
        let started = ContinuousClock.now
        let miss = try await Curl.run(origin.url("/never-seen.js?v=<b>"), proxy: offline.proxyURL)
        let elapsed = ContinuousClock.now - started
        #expect(miss.status == 504)
        #expect(miss.header("cache-status") == "larder; fwd=uri-miss; detail=offline")
        #expect(miss.text.contains("/never-seen.js?v=&lt;b&gt;"), "the page names the URL, escaped")
        #expect(elapsed < .seconds(10), "an offline miss must not wait on the network")
        let hit = try await Curl.run(origin.url("/seen.css"), proxy: offline.proxyURL)
        #expect(hit.text == "body{color:red}")
        #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
        #expect(origin.requests().isEmpty, "offline mode contacted the origin")
        await offline.stop()
        try await origin.stop()
    }

    @Test("a truncated upstream body is never stored or served later; the previous entry survives")
    func truncatedBodyNotServed() async throws {
        try await withProxy { larder, origin in
            let good = [UInt8](repeating: 0x61, count: 200_000)
            origin.setRoute("/asset.bin", TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .bytes(good)))
            let first = try await Curl.run(origin.url("/asset.bin"), proxy: larder.proxyURL)
            #expect(Bytes(first.body) == Bytes(good))
            // Stored before the next request: one sent while the first fetch is still being
            // stored would share that fetch (and its good body) instead of meeting the new version.
            await entriesStored(in: larder)

            // A new version whose body stops half way (wrong Content-Length, then FIN).
            let bad = [UInt8](repeating: 0x62, count: 200_000)
            origin.setRoute("/asset.bin", TestResponse(body: .bytes(bad), faults: [.closeAfter(bytes: 100_000)]))
            let broken = try await Curl.run(origin.url("/asset.bin"), proxy: larder.proxyURL)
            #expect(
                broken.exitCode != 0, "curl must see the truncation, not a complete response: \(broken.headers) \(broken.body.prefix(3))")
            #expect(broken.body.count < 200_000)

            // Reset mid-body on a URL never stored: nothing may be stored for it.
            origin.setRoute("/reset.bin", TestResponse(body: .generated(length: 500_000), faults: [.resetAfter(bytes: 65_536)]))
            let reset = try await Curl.run(origin.url("/reset.bin"), proxy: larder.proxyURL)
            #expect(reset.exitCode != 0)

            try await origin.stop()
            let after = try await Curl.run(origin.url("/asset.bin"), proxy: larder.proxyURL)
            #expect(after.status == 200)
            #expect(Bytes(after.body) == Bytes(good), "the previous complete entry must be served, never the truncated one")
            let never = try await Curl.run(origin.url("/reset.bin"), proxy: larder.proxyURL)
            #expect(never.status == 502)
            #expect(never.header("cache-status")?.contains("hit") != true)
            #expect(filesUnder(larder.cacheDirectory + "/tmp").isEmpty, "no temporary body left behind")
        }
    }

    @Test(
        "origin gone: no-store was never stored; no-cache and must-revalidate copies are served saying what was relaxed, except on a strict route (504)"
    )
    func directivesHonoured() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"routes": [{"match": "/strict/**", "offline": "strict"}]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        try await withProxy(arguments: ["--config", config]) { larder, origin in
            origin.setRoute("/secret", .text("secret", headers: [("Cache-Control", "no-store")]))
            origin.setRoute("/revalidate", .text("revalidate", headers: [("Cache-Control", "max-age=0, must-revalidate")]))
            origin.setRoute("/theme.css", .text("theme", headers: [("Cache-Control", "no-cache")]))
            origin.setRoute("/strict/page", .text("strict", headers: [("Cache-Control", "max-age=0, must-revalidate")]))
            origin.setRoute("/fine", .text("fine", headers: [("Cache-Control", "max-age=0")]))
            for path in ["/secret", "/revalidate", "/theme.css", "/strict/page", "/fine"] {
                let response = try await Curl.run(origin.url(path), proxy: larder.proxyURL)
                #expect(response.status == 200)
                #expect(response.header("larder-offline") == nil)
            }
            await entriesStored(in: larder, count: 4)
            try await origin.stop()
            let secret = try await Curl.run(origin.url("/secret"), proxy: larder.proxyURL)
            #expect(secret.status == 502)
            let revalidate = try await Curl.run(origin.url("/revalidate"), proxy: larder.proxyURL)
            #expect(revalidate.text == "revalidate")
            #expect(revalidate.header("cache-status")?.hasPrefix("larder; hit; ttl=") == true)
            #expect(revalidate.header("cache-status")?.hasSuffix("; detail=upstream-unreachable+relaxed-must-revalidate") == true)
            #expect(revalidate.header("larder-offline") == "1")
            let theme = try await Curl.run(origin.url("/theme.css"), proxy: larder.proxyURL)
            #expect(theme.text == "theme")
            // After three refused connections the origin is backing off: the detail says which.
            #expect(theme.header("cache-status")?.hasSuffix("+relaxed-no-cache") == true)
            let strict = try await Curl.run(origin.url("/strict/page"), proxy: larder.proxyURL)
            #expect(strict.status == 504)
            #expect(strict.text.contains("must-revalidate"))
            let fine = try await Curl.run(origin.url("/fine"), proxy: larder.proxyURL)
            #expect(fine.text == "fine")
            #expect(fine.header("cache-status")?.hasSuffix("; detail=upstream-backoff") == true)
            #expect(fine.header("larder-offline") == "1")
        }
    }

    @Test("a 5xx from upstream serves the cached copy; a 404 passes through")
    func serverErrorFallsBack() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/data.json", .text("{\"v\":1}", contentType: "application/json"))
            _ = try await Curl.run(origin.url("/data.json"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            origin.setRoute("/data.json", .text("down for maintenance", status: 503))
            let fallback = try await Curl.run(origin.url("/data.json"), proxy: larder.proxyURL)
            #expect(fallback.status == 200)
            #expect(fallback.text == "{\"v\":1}")
            #expect(fallback.header("cache-status")?.contains("detail=upstream-503") == true)
            origin.setRoute("/data.json", .text("gone", status: 404))
            let missing = try await Curl.run(origin.url("/data.json"), proxy: larder.proxyURL)
            #expect(missing.status == 404)
            #expect(missing.text == "gone")
        }
    }

    @Test("after repeated connect failures a host backs off and cached answers come at once")
    func backoff() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/app.js", .text("console.log(1)", contentType: "text/javascript"))
            _ = try await Curl.run(origin.url("/app.js"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            try await origin.stop()
            var details: [String] = []
            for _ in 0..<6 {
                let response = try await Curl.run(origin.url("/app.js"), proxy: larder.proxyURL)
                #expect(response.text == "console.log(1)")
                details.append(response.header("cache-status") ?? "")
            }
            #expect(details[0].contains("detail=upstream-unreachable"))
            // Backing off after the second failure: one request a second still goes as a probe, the others do not.
            #expect(details.dropFirst(2).contains { $0.contains("detail=upstream-backoff") }, "got \(details)")
        }
    }
}

@Suite("End to end: revalidation edge cases")
struct RevalidationEdgeTests {
    @Test("a 304 for a copy that vanished meanwhile is not passed on: the client gets the whole body")
    func notModifiedForAVanishedCopy() async throws {
        try await withProxy { larder, origin in
            // Over the in-memory size, so the body is read from its file.
            let body = GeneratedBody.bytes(0..<300_000)
            let bodies = larder.cacheDirectory + "/bodies"
            origin.setRoute(
                "/big.bin",
                .dynamic { request in
                    if request.header("if-none-match") == "\"b1\"" {
                        // Evicted or purged while the revalidation was on its way.
                        for file in filesUnder(bodies) {
                            try? FileManager.default.removeItem(atPath: bodies + "/" + file)
                        }
                        return TestResponse(status: 304, headers: [("ETag", "\"b1\"")])
                    }
                    return TestResponse(headers: [("ETag", "\"b1\""), ("Cache-Control", "max-age=0")], body: .bytes(body))
                })
            _ = try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL)
            await entriesStored(in: larder)
            let again = try await Curl.run(origin.url("/big.bin"), proxy: larder.proxyURL)
            #expect(again.status == 200)
            #expect(Bytes(again.body) == Bytes(body))
            #expect(origin.requestCount("/big.bin") == 3)
        }
    }

    @Test("a precached file whose response varies (a CDN's Vary: Origin) is served to any request offline")
    func precachedEntriesIgnoreVary() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/cdn/page.html", .text("<p>cors", contentType: "text/html", headers: [("Vary", "Origin, Access-Control-Request-Headers")]))
            let list = larder.cacheDirectory + "-games.txt"
            defer { try? FileManager.default.removeItem(atPath: list) }
            try "\(origin.url("/cdn/page.html"))\n".write(toFile: list, atomically: true, encoding: .utf8)
            let run = try await LarderCLI.run(["precache", list, "--cache-dir", larder.cacheDirectory])
            #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
            try await origin.stop()
            let answer = try await Curl.run(
                origin.url("/cdn/page.html"), proxy: larder.proxyURL, arguments: ["-H", "Origin: https://game.example"])
            #expect(answer.status == 200)
            #expect(answer.text == "<p>cors")
        }
    }
}
