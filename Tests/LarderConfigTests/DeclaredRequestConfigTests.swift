import Foundation
import LarderHTTP
import Testing

@testable import LarderConfig

/// The config file's `requests`: what is read, and the errors for what is wrong.
@Suite("Config declared requests")
struct DeclaredRequestConfigTests {
    private func configuration(_ json: String, file: String = "larder.json") throws -> LarderConfigFile {
        try LarderConfigFile(parsing: Array(json.utf8), file: file)
    }

    private func problem(_ json: String) -> String {
        LarderConfigFile.problem(parsing: json)
    }

    @Test("a GraphQL today query: POST by default, keyed as graphql, placeholders in the zone given")
    func graphQLToday() throws {
        let file = try self.configuration(
            #"""
            {
              "requests": [
                {
                  "name": "today",
                  "url": "https://api.example/graphql",
                  "headers": { "Authorization": "Bearer {{env:TOKEN}}" },
                  "body": { "operationName": "Today", "query": "query Today($day: String!) { daily(day: $day) { id } }",
                            "variables": { "day": "{{today}}" } },
                  "timeZone": "America/New_York",
                  "schedule": { "every": "30m", "jitter": "1m" }
                }
              ]
            }
            """#)
        let request = try #require(file.declaredRequests.first)
        #expect(request.name == "today")
        #expect(request.method == "POST")
        #expect(request.bodyKey == .graphql)
        #expect(request.timeZone.identifier == "America/New_York")
        #expect(request.schedule.every == .seconds(1800))
        #expect(request.schedule.jitter == .seconds(60))
        #expect(request.usesDay)
        // 2026-03-01 02:30 UTC is still 28 February in New York.
        let resolved = try request.resolve(
            .init(now: Date(timeIntervalSince1970: 1_772_332_200), timeZone: request.timeZone, environment: ["TOKEN": "t"])
        ) { _ in [] }
        let body = String(decoding: try #require(resolved.body), as: UTF8.self)
        #expect(body.contains(#""variables":{"day":"2026-02-28"}"#))
        #expect(resolved.headers.contains(HeaderField(name: "Authorization", value: "Bearer t")))
        #expect(resolved.headers.contains(HeaderField(name: "Content-Type", value: "application/json")))
        #expect(resolved.key.isKeyed)
        #expect(resolved.key.rawValue.hasPrefix("https://api.example/graphql#POST=graphql:"))
    }

    @Test("a GET without a body is stored under its URL; a daily time means daily")
    func plainGet() throws {
        let file = try self.configuration(
            #"{"requests": [{"name": "puzzles", "url": "https://x.example/p/{{today}}.json", "timeZone": "UTC", "schedule": {"at": "00:05"}}]}"#
        )
        let request = try #require(file.declaredRequests.first)
        #expect(request.method == "GET")
        #expect(request.schedule.every == .seconds(86_400))
        let resolved = try request.resolve(.init(now: Date(timeIntervalSince1970: 1_772_332_200), timeZone: request.timeZone)) { _ in [] }
        #expect(resolved.key.rawValue == "https://x.example/p/2026-03-01.json")
        #expect(resolved.body == nil)
    }

    @Test("pageOrigins: the user's pages that may have an answer fetched with Larder's credentials, normalised; anything else refused")
    func pageOrigins() throws {
        let file = try self.configuration(
            #"{"requests": [{"name": "inbox", "url": "https://api.example/inbox", "pageOrigins": ["https://WWW.example:443"]}]}"#)
        #expect(file.declaredRequests.first?.pageOrigins == ["https://www.example"])
        #expect(
            try self.configuration(#"{"requests": [{"name": "a", "url": "https://a.example/"}]}"#).declaredRequests.first?.pageOrigins == []
        )
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "pageOrigins": ["https://www.example/app"]}]}"#).contains(
                "requests[0].pageOrigins[0]: expected an origin"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "pageOrigins": "https://www.example"}]}"#).contains(
                "requests[0].pageOrigins: expected an array of origins"))
    }

    @Test("a body file is found next to the config file and read at every run")
    func bodyFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("declared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let query = #"{"query": "query Q { a }", "variables": {"d": "{{today}}"}}"#
        try Data(query.utf8).write(to: URL(fileURLWithPath: directory + "/today.json"))
        let file = try self.configuration(
            #"{"requests": [{"name": "q", "url": "https://api.example/graphql", "bodyFile": "today.json", "bodyKey": "graphql"}]}"#,
            file: directory + "/larder.json")
        let request = try #require(file.declaredRequests.first)
        guard case .file(let path) = request.body else {
            Issue.record("expected a file body")
            return
        }
        #expect(path == directory + "/today.json")
        #expect(request.method == "POST")
    }

    @Test("mistakes are refused with the key path and the problem")
    func errors() {
        #expect(problem(#"{"requests": [{"url": "https://a.example/"}]}"#).contains("requests[0]: needs a name"))
        #expect(problem(#"{"requests": [{"name": "a b", "url": "https://a.example/"}]}"#).contains("requests[0].name"))
        #expect(problem(#"{"requests": [{"name": "a"}]}"#).contains("needs a url"))
        #expect(problem(#"{"requests": [{"name": "a", "url": "ftp://a.example/"}]}"#).contains("requests[0]: url ftp://a.example/"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/{{tomorrow}}"}]}"#).contains("requests[0].url: {{tomorrow}}"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "method": "DELETE"}]}"#).contains(
                "requests[0].method: DELETE is not a method Larder keeps fresh"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "method": "GET", "body": {}}]}"#).contains(
                "a GET request has no body"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "body": {}, "bodyText": "x"}]}"#).contains(
                "has body and bodyText; give one body"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "bodyText": "x", "bodyKey": "json"}]}"#).contains(
                "cannot be keyed as json"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "bodyFile": "nope.json"}]}"#).contains("no readable file at")
        )
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "timeZone": "Mars/Olympus"}]}"#).contains(
                "requests[0].timeZone"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "schedule": {"every": "5s"}}]}"#).contains("schedule.every"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "schedule": {"at": "25:00"}}]}"#).contains("schedule.at"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/", "headers": {"Connection": "x"}}]}"#).contains(
                "set by Larder"))
        #expect(
            problem(#"{"requests": [{"name": "a", "url": "https://a.example/"}, {"name": "a", "url": "https://b.example/"}]}"#).contains(
                "names must differ"))
    }
}
