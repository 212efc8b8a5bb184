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

    @Test("on defaults a GraphQL query POST is answered with the origin gone; a mutation never is; a body that does not parse goes whole")
    func graphQLOnDefaults() async throws {
        try await withProxy { larder, origin in
            origin.setRoute(
                "/graphql",
                .dynamic { request in
                    let body = String(decoding: request.body, as: UTF8.self)
                    if body.contains("mutation") { return .text(#"{"data":{"save":true}}"#, contentType: "application/json") }
                    if body.contains("today") { return .text(#"{"data":{"today":"puzzle-1"}}"#, contentType: "application/json") }
                    return .text(#"{"errors":[{"message":"bad request"}]}"#, status: 400, contentType: "application/json")
                })
            let json = ["-X", "POST", "-H", "Content-Type: application/json", "--data"]
            let query = #"{"query":"query Today { today }","operationName":"Today"}"#
            let mutation = #"{"query":"mutation SaveToday { save }"}"#
            let broken = #"{"query":"query Other { other }","#

            let online = try await Curl.run(origin.url("/graphql"), proxy: larder.proxyURL, arguments: json + [query])
            #expect(online.status == 200)
            #expect(online.header("cache-status") == "larder; fwd=uri-miss; fwd-status=200; stored")
            let write = try await Curl.run(origin.url("/graphql"), proxy: larder.proxyURL, arguments: json + [mutation])
            #expect(write.text == #"{"data":{"save":true}}"#)
            #expect(write.header("cache-status")?.hasSuffix("; detail=graphql-mutation") == true)
            let unparsed = try await Curl.run(origin.url("/graphql"), proxy: larder.proxyURL, arguments: json + [broken])
            #expect(unparsed.status == 400, "the origin's own answer")
            #expect(unparsed.header("cache-status")?.hasSuffix("; detail=invalid-json") == true)
            #expect(origin.requests("/graphql").map { String(decoding: $0.body, as: UTF8.self) } == [query, mutation, broken])
            await entriesStored(in: larder)

            try await origin.stop()
            let offline = try await Curl.run(
                origin.url("/graphql"), proxy: larder.proxyURL,
                arguments: json + [#"{ "operationName": "Today", "query": "query Today {\n  today\n}" }"#])
            #expect(offline.status == 200)
            #expect(offline.text == #"{"data":{"today":"puzzle-1"}}"#)
            #expect(offline.header("cache-status")?.hasPrefix("larder; hit;") == true)
            #expect(offline.header("cache-status")?.hasSuffix("; detail=upstream-unreachable+graphql-query") == true)
            #expect(offline.header("larder-offline") == "1")

            let writeOffline = try await Curl.run(origin.url("/graphql"), proxy: larder.proxyURL, arguments: json + [mutation])
            #expect(writeOffline.status == 502)
            #expect(writeOffline.header("cache-status")?.contains("graphql-mutation") == true)
            let unparsedOffline = try await Curl.run(origin.url("/graphql"), proxy: larder.proxyURL, arguments: json + [broken])
            #expect(unparsedOffline.status == 502)
            #expect(unparsedOffline.header("cache-status")?.contains("invalid-json") == true)
        }
    }
}
