import Foundation
import Testing

/// Requests keyed by their bodies, through the binary (docs/SERVING.md, "Requests with bodies").
@Suite("End to end: requests with bodies")
struct RequestBodyTests {
    @Test("a route opting POSTs in: after one online answer, the same JSON question written otherwise is answered with the origin gone")
    func postAnsweredOffline() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/larder.json"
        try #"{"routes": [{"match": "/api/search", "cacheMethods": ["POST"], "bodyKey": "json"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)

        try await withProxy(arguments: ["--config", path]) { larder, origin in
            origin.setRoute("/api/search", .text(#"{"results":["cats"]}"#, headers: [("Cache-Control", "no-store")]))
            let json = ["-X", "POST", "-H", "Content-Type: application/json", "--data"]
            let online = try await Curl.run(
                origin.url("/api/search"), proxy: larder.proxyURL, arguments: json + [#"{"q":"cats","page":1}"#])
            #expect(online.status == 200)
            #expect(online.header("cache-status") == "larder; fwd=uri-miss; fwd-status=200; stored")
            #expect(origin.requests("/api/search").first?.body == Array(#"{"q":"cats","page":1}"#.utf8))
            await entriesStored(in: larder)

            try await origin.stop()
            let offline = try await Curl.run(
                origin.url("/api/search"), proxy: larder.proxyURL, arguments: json + ["{ \"page\": 1, \"q\": \"cats\" }"])
            #expect(offline.status == 200)
            #expect(offline.text == #"{"results":["cats"]}"#)
            #expect(offline.header("cache-status")?.hasSuffix("; detail=upstream-unreachable") == true)
            #expect(offline.header("larder-offline") == "1")

            let other = try await Curl.run(origin.url("/api/search"), proxy: larder.proxyURL, arguments: json + [#"{"q":"dogs","page":1}"#])
            #expect(other.status == 502)
        }
    }
}
