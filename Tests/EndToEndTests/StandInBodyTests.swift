import Foundation
import LarderTestSupport
import Synchronization
import Testing

/// Reads whose bodies change every time (docs/SERVING.md, "Reads whose bodies change every
/// time"): a dashboard's JSON POST with now-relative times, charts sent as multipart form data
/// with a new boundary each time, a GraphQL query whose variables hold the clock. Offline, the
/// stored answer whose body is nearest stands in; online nothing changes.
@Suite("End to end: stand-ins for reads whose bodies change every time", .serialized)
struct StandInBodyTests {
    /// A dashboard read as the app sends it now: the last week, in milliseconds.
    static func dashboardBody(panel: String = "cpu", now: Date = Date()) -> String {
        let end = Int64(now.timeIntervalSince1970 * 1000)
        return #"{"panel":"\#(panel)","start_time_ms":\#(end - 7 * 86_400_000),"end_time_ms":\#(end)}"#
    }

    @Test(
        "Answer offline on a JSON read with now-relative times: after one online visit a later body stands in offline, saying which fields differed; a body differing in meaning does not; online every body goes to the origin"
    )
    func clockInJSON() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        let served = Counter()
        origin.setRoute(
            "/api/metrics",
            .dynamic { request in
                let n = served.next()
                let panel = String(decoding: request.body, as: UTF8.self).contains(#""panel":"cpu""#) ? "cpu" : "other"
                return .text(#"{"series":"\#(panel) answer \#(n)"}"#, contentType: "application/json")
            })
        let url = origin.url("/api/metrics")
        let larder = try await LarderProcess()
        func post(_ body: String) async throws -> CurlResult {
            try await Curl.run(
                url, proxy: larder.proxyURL, arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body])
        }
        do {
            #expect(try await post(Self.dashboardBody()).status == 200)
            let pressed = try await AnswerOfflineTests.press("answer-offline", ["url=\(url)", "method=POST"], larder: larder)
            #expect(pressed.status == 303)
            let visit = try await post(Self.dashboardBody())
            #expect(visit.text == #"{"series":"cpu answer 2"}"#, "the online visit is answered by the origin: \(visit.text)")

            // Online, a new body is the origin's to answer: nothing stands in.
            try await Task.sleep(for: .milliseconds(20))
            let online = try await post(Self.dashboardBody())
            #expect(online.text == #"{"series":"cpu answer 3"}"#, "\(online.headers)")
            #expect(online.header("cache-status")?.contains("stand-in") != true)

            // The answer is committed just after the client has it: stored before the origin goes.
            await entriesStored(in: larder)
            try await origin.stop()
            try await Task.sleep(for: .milliseconds(20))
            let offline = try await post(Self.dashboardBody())
            #expect(offline.status == 200, "\(offline.status) \(offline.headers)")
            #expect(offline.text == #"{"series":"cpu answer 3"}"#, "the nearest answer stands in: \(offline.text)")
            let status = offline.header("cache-status") ?? ""
            #expect(status.contains("stand-in-body"), "\(status)")
            #expect(status.contains("start_time_ms") && status.contains("end_time_ms"), "\(status)")
            #expect(offline.header("larder-offline") == "1")

            let other = try await post(Self.dashboardBody(panel: "disk"))
            #expect(other.status == 502, "another panel is another question: \(other.headers)")
            #expect(other.header("cache-status")?.contains("body-not-near") == true, "\(other.headers)")
            let garbled = try await post(#"{"panel":"cpu","start_time_ms":"#)
            #expect(garbled.status == 502, "a body that does not parse is never matched loosely")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test("a multipart read with a new boundary each time (curl -F): the stored answer stands in offline, and another field value does not")
    func multipartBoundary() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/charts", .dynamic { _ in .text(#"{"points":[1,2,3]}"#, contentType: "application/json") })
        let url = origin.url("/charts")
        let larder = try await LarderProcess()
        func post(chart: String, until: String) async throws -> CurlResult {
            try await Curl.run(url, proxy: larder.proxyURL, arguments: ["-F", "chart=\(chart)", "-F", "until=\(until)"])
        }
        do {
            #expect(try await AnswerOfflineTests.press("answer-offline", ["url=\(url)", "method=POST"], larder: larder).status == 303)
            #expect(try await post(chart: "load", until: "2026-11-28T10:00:00Z").status == 200)
            // The answer is committed just after the client has it: stored before the origin goes.
            await entriesStored(in: larder)
            try await origin.stop()
            let offline = try await post(chart: "load", until: "2026-11-28T10:05:00Z")
            #expect(offline.status == 200, "\(offline.headers)")
            #expect(offline.text == #"{"points":[1,2,3]}"#)
            #expect(offline.header("cache-status")?.contains("stand-in-body") == true, "\(offline.headers)")
            let same = try await post(chart: "load", until: "2026-11-28T10:00:00Z")
            #expect(same.status == 200, "only the boundary differs: \(same.headers)")
            #expect(try await post(chart: "disk", until: "2026-11-28T10:00:00Z").status == 502)
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test("a GraphQL query on defaults whose variables hold the clock: the stored answer stands in offline, no click needed")
    func graphQLClock() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/graphql", .dynamic { _ in .text(#"{"data":{"events":[]}}"#, contentType: "application/json") })
        let url = origin.url("/graphql")
        let larder = try await LarderProcess()
        func post(since: Int) async throws -> CurlResult {
            let body = #"{"query":"query Events($since: Float) { events(since: $since) { id } }","variables":{"since":\#(since)}}"#
            return try await Curl.run(
                url, proxy: larder.proxyURL, arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body])
        }
        do {
            #expect(try await post(since: 1_795_000_000_000).status == 200)
            // The answer is committed just after the client has it: stored before the origin goes.
            await entriesStored(in: larder)
            try await origin.stop()
            let offline = try await post(since: 1_795_000_060_000)
            #expect(offline.status == 200, "\(offline.headers)")
            #expect(offline.header("cache-status")?.contains("graphql-query+stand-in-body") == true, "\(offline.headers)")
            #expect(offline.header("cache-status")?.contains("variables.since") == true, "\(offline.headers)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }
}

/// A count shared with an origin's handler.
private final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        self.value.withLock {
            $0 += 1
            return $0
        }
    }
}
