import Foundation
import LarderDeclaredRequests
import LarderHTTP
import LarderStore
import Logging
import Testing

@testable import LarderProxy

/// What a run of a declared request stores and records.
@Suite("Declared request runner")
struct DeclaredRequestRunnerTests {
    private static let url = "http://api.example/graphql"

    private func withRunner(_ body: (DeclaredRequestRunner, ScriptedUpstream, Store) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("declared-\(UUID().uuidString)").path
        let store = try Store(directory: directory)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let upstream = ScriptedUpstream()
        try await body(DeclaredRequestRunner(store: store, upstream: upstream, logger: Logger(label: "test")), upstream, store)
    }

    private func request() throws -> DeclaredRequest {
        let body = try JSONParser.parse(Array(#"{"query": "query Q($d: String) { a(d: $d) }", "variables": {"d": "{{today}}"}}"#.utf8))
        return DeclaredRequest(
            name: "today", method: "POST", url: try TextTemplate(parsing: Self.url), body: .json(body), bodyKey: .graphql,
            timeZone: TimeZone(identifier: "UTC")!)
    }

    @Test("a 2xx answer is stored under the request's key whatever its Cache-Control, and recorded")
    func storesAnswer() async throws {
        try await self.withRunner { runner, upstream, store in
            upstream.script(Self.url, .init(headers: [("Cache-Control", "no-store"), ("Content-Type", "application/json")], body: "one"))
            let outcome = await runner.run(try self.request()) { _ in Date(timeIntervalSince1970: 2_000_000_000) }
            #expect(outcome == .stored(status: 200, bytes: 3))
            let sent = try #require(upstream.requests.first)
            #expect(sent.method == "POST")
            #expect(sent.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
            let record = try #require(try await store.declaredRequests().first)
            #expect(record.lastError == nil)
            #expect(record.lastStatus == 200)
            #expect(record.bodySize == 3)
            #expect(record.nextRun == Date(timeIntervalSince1970: 2_000_000_000))
            let key = CacheKey(storedRawValue: try #require(record.key))
            #expect(key.isKeyed)
            let entry = try #require(try await store.variants(of: key).first)
            #expect(entry.kind == .precached)
            #expect(try String(contentsOfFile: entry.bodyPath, encoding: .utf8) == "one")
        }
    }

    @Test("a new day's answer replaces the previous day's; what is recorded never shows a token from the environment")
    func newDayAndSecrets() async throws {
        try await self.withRunner { runner, upstream, store in
            let url = "http://api.example/today?key={{env:LARDER_TEST_TOKEN}}"
            setenv("LARDER_TEST_TOKEN", "s3cr3t-t0ken", 1)
            let resolvedURL = "http://api.example/today?key=s3cr3t-t0ken"
            upstream.script(resolvedURL, .init(body: "day"))
            var request = try self.request()
            request.url = try TextTemplate(parsing: url)
            let first = Date(timeIntervalSince1970: 1_800_000_000)
            await runner.run(request, now: first)
            let firstKey = try #require(try await store.declaredRequests().first?.key)
            await runner.run(request, now: first + 86_400)
            let record = try #require(try await store.declaredRequests().first)
            #expect(record.key != firstKey)
            #expect(try await store.variants(of: CacheKey(storedRawValue: firstKey)).isEmpty)
            #expect(try await store.variants(of: CacheKey(storedRawValue: try #require(record.key))).count == 1)
            #expect(record.url == "http://api.example/today?key={{env:LARDER_TEST_TOKEN}}")
            upstream.script(resolvedURL, .init(failure: .connectionRefused))
            await runner.run(request, now: first + 86_400)
            let failed = try #require(try await store.declaredRequests().first)
            #expect(failed.lastError?.contains("s3cr3t") == false)
            #expect(failed.lastError?.contains("{{env:LARDER_TEST_TOKEN}}") == true)
        }
    }

    @Test("an error answer or a failure is recorded and never replaces the stored answer")
    func failuresKeepAnswer() async throws {
        try await self.withRunner { runner, upstream, store in
            upstream.script(Self.url, .init(body: "good"))
            await runner.run(try self.request())
            upstream.script(Self.url, .init(status: 503, body: "down"))
            let unavailable = await runner.run(try self.request())
            #expect(unavailable == .failed(reason: "answered HTTP 503", connectFailure: false))
            #expect(try await store.declaredRequests().first?.lastStatus == 503)
            upstream.script(Self.url, .init(failure: .connectionRefused))
            guard case .failed(_, true) = await runner.run(try self.request()) else {
                Issue.record("a refused connection is a connect failure")
                return
            }
            let record = try #require(try await store.declaredRequests().first)
            #expect(record.consecutiveFailures == 2)
            #expect(record.lastError?.contains("connectionRefused") == true)
            #expect(record.lastSuccess != nil)
            let storedKey = try #require(record.key)
            let entry = try #require(try await store.variants(of: CacheKey(storedRawValue: storedKey)).first)
            #expect(try String(contentsOfFile: entry.bodyPath, encoding: .utf8) == "good")
        }
    }
}
