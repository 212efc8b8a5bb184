import Foundation
import LarderHTTP
import LarderTestSupport
import Synchronization
import Testing

/// Declared requests through the `larder` binary: a GraphQL today query kept fresh by the proxy
/// and answered to the app's own POST when the origin cannot answer.
@Suite("End to end: declared requests", .serialized)
struct DeclaredRequestTests {
    /// A zone whose date differs from UTC's right now: UTC-12 in the first half of a UTC day
    /// (still yesterday there), UTC+14 in the second (already tomorrow).
    static func zoneOffToday(now: Date = Date()) -> (zone: String, day: String, utcDay: String) {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let zone = utc.component(.hour, from: now) < 12 ? "Etc/GMT+12" : "Pacific/Kiritimati"
        var local = Calendar(identifier: .gregorian)
        local.timeZone = TimeZone(identifier: zone)!
        func day(_ calendar: Calendar) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: now)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        return (zone, day(local), day(utc))
    }

    static let query = "query Today($day: String!) { today(day: $day) { puzzle } }"

    /// A GraphQL origin: `/graphql` answers `{"data":{"day":DAY,"version":N}}`, N counting its answers.
    static func graphQLOrigin() async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        let answers = Atomic<Int>(0)
        origin.setRoute(
            "/graphql",
            .dynamic { request in
                // The POST form's body, or the GET form's `variables` parameter.
                var variablesJSON = Data(request.body)
                if request.method == "GET", let query = URLComponents(string: request.uri)?.queryItems,
                    let variables = query.first(where: { $0.name == "variables" })?.value
                {
                    variablesJSON = Data(#"{"variables":\#(variables)}"#.utf8)
                }
                guard let object = try? JSONSerialization.jsonObject(with: variablesJSON) as? [String: Any],
                    let variables = object["variables"] as? [String: Any], let day = variables["day"] as? String
                else {
                    return .text(#"{"errors":[{"message":"bad request"}]}"#, status: 400, contentType: "application/json")
                }
                let version = answers.add(1, ordering: .relaxed).newValue
                return .text(
                    #"{"data":{"day":"\#(day)","version":\#(version)}}"#, contentType: "application/json",
                    headers: [("Cache-Control", "no-store")])
            })
        return origin
    }

    /// POSTs `body` to `url` through the proxy, as the app does.
    static func post(_ url: String, _ body: String, proxy: String) async throws -> CurlResult {
        try await Curl.run(url, proxy: proxy, arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body])
    }

    /// The proxy's report of its declared requests.
    static func declared(_ larder: LarderProcess) async throws -> [[String: Any]] {
        let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
        return json?["declaredRequests"] as? [[String: Any]] ?? []
    }

    @Test(
        "after a deploy changes the today query, one online visit is enough: the declared request follows the app's query, across a restart, and answers it offline"
    )
    func followsTheAppsQuery() async throws {
        let origin = try await Self.graphQLOrigin()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let day = Self.zoneOffToday().utcDay
        let config = directory + "/larder.json"
        try #"""
        {
          "requests": [
            {
              "name": "today",
              "url": "\#(origin.url("/graphql"))",
              "body": { "operationName": "Today", "query": "\#(Self.query)", "variables": { "day": "{{today}}" } },
              "timeZone": "UTC"
            }
          ]
        }
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let deployed = "query Today($day: String!) { today(day: $day) { puzzle hint } }"
        let appBody = #"{"operationName":"Today","query":"\#(deployed)","variables":{"day":"\#(day)"}}"#
        var larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: directory + "/cache")
        do {
            #expect(try await eventually { try await Self.declared(larder).first?["state"] as? String == "fresh" })
            #expect(try await Self.declared(larder).first?["learnedAt"] == nil)
            // The deployed app asks its new query once, online.
            let online = try await Curl.run(
                origin.url("/graphql"), proxy: larder.proxyURL,
                arguments: [
                    "-X", "POST", "-H", "Content-Type: application/json", "-H", "Referer: http://www.example/today", "--data-binary",
                    appBody,
                ])
            #expect(online.status == 200)
            #expect(try await eventually { try await Self.declared(larder).first?["learnedFrom"] as? String == "http://www.example/today" })
            let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(
                page.text.contains("the app&#39;s own query, learned") || page.text.contains("the app's own query, learned"),
                "\(page.text.prefix(200))")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.stop()

        // After a restart, Larder's own run sends the app's query, not the config's.
        origin.resetRecords()
        larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: directory + "/cache")
        do {
            #expect(await eventually { origin.requests("/graphql").count >= 1 })
            let sent = String(decoding: try #require(origin.requests("/graphql").first).body, as: UTF8.self)
            #expect(sent.contains("hint"), "Larder's run sent the learned query: \(sent)")
            #expect(sent.contains(#""day":"\#(day)""#), "\(sent)")
            #expect(try await eventually { try await Self.declared(larder).first?["state"] as? String == "fresh" })

            // Offline, the app's new query is answered from what Larder's own run stored.
            try await origin.stop()
            let offline = try await Self.post(origin.url("/graphql"), appBody, proxy: larder.proxyURL)
            #expect(offline.status == 200, "\(offline.headers)")
            #expect(offline.header("cache-status")?.contains("detail=declared") == true, "\(offline.headers)")
            #expect(offline.text.contains(#""day":"\#(day)""#))
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test(
        "a declared GraphQL today query: run at start-up in its zone, answered offline to the app's reordered POST, refreshed when the origin returns"
    )
    func graphQLToday() async throws {
        let origin = try await Self.graphQLOrigin()
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (zone, localDay, utcDay) = Self.zoneOffToday()
        let config = directory + "/larder.json"
        try #"""
        {
          "routes": [{ "match": "\#(origin.url("/graphql"))", "bodyKey": "graphql" }],
          "requests": [
            {
              "name": "today",
              "url": "\#(origin.url("/graphql"))",
              "body": { "operationName": "Today", "query": "\#(Self.query)", "variables": { "day": "{{today}}" } },
              "timeZone": "\#(zone)"
            }
          ]
        }
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(serve: ["--config", config], cacheDirectory: directory + "/cache")
        do {
            // At start-up, with today in the request's zone (not UTC's).
            #expect(await eventually { origin.requests("/graphql").count >= 1 })
            let sent = try #require(origin.requests("/graphql").first)
            #expect(String(decoding: sent.body, as: UTF8.self).contains(#""day":"\#(localDay)""#))
            #expect(localDay != utcDay)
            #expect(try await eventually { try await Self.declared(larder).first?["state"] as? String == "fresh" })

            // Online, the app's own POST goes to the origin, and its answer refreshes the stored one.
            let appBody = #"{ "variables" : {"day":"\#(localDay)"}, "query": "\#(Self.query)",  "operationName":"Today" }"#
            let online = try await Self.post(origin.url("/graphql"), appBody, proxy: larder.proxyURL)
            #expect(online.status == 200)
            #expect(online.text.contains(#""version":2"#))
            #expect(online.header("larder-offline") == nil)

            // The GET form of the query (a route keys it by its GraphQL parameters), answered online.
            func getForm(_ parameters: [(String, String)]) -> String {
                var components = URLComponents(string: origin.url("/graphql"))!
                components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
                return components.url!.absoluteString
            }
            let getOnline = try await Curl.run(
                getForm([("query", Self.query), ("variables", #"{"day":"\#(localDay)"}"#), ("operationName", "Today")]),
                proxy: larder.proxyURL)
            #expect(getOnline.status == 200)
            #expect(getOnline.text.contains(#""version":3"#))

            // The origin is gone: a refresh fails, and the stored answer stays.
            try await origin.stop()
            _ = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/refresh-request", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data", "name=today"])
            #expect(try await eventually { try await Self.declared(larder).first?["state"] as? String == "failing" })
            // The same query, members reordered and spaced, is answered from the store.
            let reordered = #"{"query":"\#(Self.query)","operationName":"Today","variables":{ "day" : "\#(localDay)" }}"#
            let offline = try await Self.post(origin.url("/graphql"), reordered, proxy: larder.proxyURL)
            #expect(offline.status == 200)
            #expect(offline.text == #"{"data":{"day":"\#(localDay)","version":2}}"#)
            #expect(offline.header("cache-status")?.contains("detail=declared") == true)
            #expect(offline.header("larder-offline") == "1")
            // The GET form, its parameters in another order and its query spaced otherwise, from the store.
            let getOffline = try await Curl.run(
                getForm([
                    ("operationName", "Today"), ("variables", #"{ "day": "\#(localDay)" }"#),
                    ("query", Self.query.replacingOccurrences(of: " { ", with: "  {  ")),
                ]),
                proxy: larder.proxyURL)
            #expect(getOffline.status == 200)
            #expect(getOffline.text.contains(#""version":3"#))
            #expect(getOffline.header("larder-offline") == "1")
            // Other variables are another request: not answered from it.
            let other = try await Self.post(
                origin.url("/graphql"), #"{"query":"\#(Self.query)","operationName":"Today","variables":{"day":"1999-01-01"}}"#,
                proxy: larder.proxyURL)
            #expect(other.status >= 500)

            // The origin returns: the declared request runs again without waiting for its schedule (an hour).
            let before = origin.requests("/graphql").count
            try await origin.restart()
            #expect(await eventually(within: 20) { origin.requests("/graphql").count > before })
            #expect(try await eventually { try await Self.declared(larder).first?["state"] as? String == "fresh" })

            // Shown on /dev/offline, and "refresh now" runs it.
            let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(page.text.contains("Declared requests"))
            #expect(page.text.contains("refresh-request"))
            let count = origin.requests("/graphql").count
            let refresh = try await Curl.run(
                larder.proxyURL + "/dev/offline/actions/refresh-request", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)", "--data", "name=today"])
            #expect(refresh.status == 303)
            #expect(await eventually { origin.requests("/graphql").count > count })

            // larder status reads the record from the store.
            let status = try await LarderCLI.run(["status", "--cache-dir", directory + "/cache", "--proxy", "none"])
            #expect(status.stdout.contains("Declared requests:"))
            #expect(status.stdout.contains("✓ today  POST \(origin.url("/graphql"))"))
        } catch {
            print("larder log:\n\(larder.log)")
            throw error
        }
        await larder.tearDown()
        try? await origin.stop()
    }
}
