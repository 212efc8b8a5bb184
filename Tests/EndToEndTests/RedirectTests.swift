import Foundation
import LarderTestSupport
import Testing

/// Redirects kept for disconnected use, through the binary (docs/SERVING.md, "Redirects").
@Suite("End to end: redirects")
struct RedirectTests {
    @Test("a form that answers 302: online the origin is asked each time; with it gone, curl -L follows the stored 302 to the stored page")
    func formRedirectOffline() async throws {
        let other = try await TestOrigin.start()
        try await withProxy { larder, origin in
            origin.setRoute("/db/table?_filter=a", TestResponse(status: 302, headers: [("Location", "/db/table?a=1")]))
            origin.setRoute("/db/table?a=1", .text("rows where a=1", contentType: "text/html"))
            let elsewhere = other.url("/elsewhere")
            origin.setRoute("/go", TestResponse(status: 307, headers: [("Location", elsewhere)]))
            other.setRoute("/elsewhere", .text("on the other origin", contentType: "text/html"))

            let online = try await Curl.run(origin.url("/db/table?_filter=a"), proxy: larder.proxyURL, arguments: ["-L"])
            #expect(online.status == 200)
            #expect(online.text == "rows where a=1")
            #expect(try await Curl.run(origin.url("/go"), proxy: larder.proxyURL, arguments: ["-L"]).text == "on the other origin")
            await entriesStored(in: larder, count: 4)

            // Online the stored 302 is not the answer: the origin sees each request.
            let again = try await Curl.run(origin.url("/db/table?_filter=a"), proxy: larder.proxyURL)
            #expect(again.status == 302)
            #expect(again.header("cache-status")?.hasPrefix("larder; fwd=stale") == true)
            #expect(origin.requestCount("/db/table?_filter=a") == 2)

            try await origin.stop()
            try await other.stop()
            let redirect = try await Curl.run(origin.url("/db/table?_filter=a"), proxy: larder.proxyURL)
            #expect(redirect.status == 302)
            #expect(redirect.header("location") == "/db/table?a=1", "the Location as the origin sent it")
            #expect(redirect.header("cache-status")?.hasPrefix("larder; hit;") == true)
            #expect(redirect.header("cache-status")?.hasSuffix("; detail=upstream-unreachable+relaxed-status-302") == true)
            #expect(redirect.header("larder-offline") == "1")

            let followed = try await Curl.run(origin.url("/db/table?_filter=a"), proxy: larder.proxyURL, arguments: ["-L"])
            #expect(followed.status == 200)
            #expect(followed.text == "rows where a=1")
            #expect(followed.header("cache-status")?.hasPrefix("larder; hit;") == true)
            // The origin failed twice in a row by now: it may be backing off.
            let followedStatus = followed.header("cache-status") ?? ""
            #expect(
                followedStatus.hasSuffix("; detail=upstream-unreachable") || followedStatus.hasSuffix("; detail=upstream-backoff"),
                "\(followedStatus)")
            #expect(followed.header("larder-offline") == "1")

            let crossOrigin = try await Curl.run(origin.url("/go"), proxy: larder.proxyURL)
            #expect(crossOrigin.status == 307)
            #expect(crossOrigin.header("location") == elsewhere)
            let crossFollowed = try await Curl.run(origin.url("/go"), proxy: larder.proxyURL, arguments: ["-L"])
            #expect(crossFollowed.text == "on the other origin")
        }
    }

    @Test("a page line whose URL redirects precaches the redirect and the page it leads to, both served with the origin gone")
    func pageLineFollowsRedirects() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/start", TestResponse(status: 302, headers: [("Location", "/landing")]))
        origin.setRoute("/landing", .text("the landing page", contentType: "text/html"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let list = directory + "/games.txt"
        try "page \(origin.url("/start"))\n".write(toFile: list, atomically: true, encoding: .utf8)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", cache])
        #expect(run.exitCode == 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        #expect(origin.requestCount("/landing") == 1)
        try await origin.stop()

        let larder = try await LarderProcess(cacheDirectory: cache)
        let redirect = try await Curl.run(origin.url("/start"), proxy: larder.proxyURL)
        #expect(redirect.status == 302)
        #expect(redirect.header("location") == "/landing")
        let followed = try await Curl.run(origin.url("/start"), proxy: larder.proxyURL, arguments: ["-L"])
        #expect(followed.status == 200)
        #expect(followed.text == "the landing page")
        #expect(followed.header("larder-offline") == "1")
        await larder.stop()
    }

    @Test("a page line that redirects in a loop fails, naming the URLs")
    func pageLineLoop() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/a", TestResponse(status: 302, headers: [("Location", "/b")]))
        origin.setRoute("/b", TestResponse(status: 303, headers: [("Location", origin.url("/a"))]))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = directory + "/games.txt"
        try "page \(origin.url("/a"))\n".write(toFile: list, atomically: true, encoding: .utf8)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache"])
        #expect(run.exitCode != 0)
        let output = run.stdout + run.stderr
        #expect(output.contains("redirects in a loop: \(origin.url("/b")) leads back to \(origin.url("/a"))"), "\(output)")
    }
}
