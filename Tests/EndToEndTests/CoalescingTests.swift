import Foundation
import LarderHTTP
import LarderTestSupport
import Synchronization
import Testing

/// Concurrent misses for one URL make one upstream request.
@Suite("End to end: coalescing concurrent misses", .serialized)
struct CoalescingTests {
    private static func fetchConcurrently(_ url: String, proxy: String, count: Int) async throws -> [CurlResult] {
        try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<count {
                group.addTask { try await Curl.run(url, proxy: proxy, timeout: 40) }
            }
            var results: [CurlResult] = []
            for try await result in group {
                results.append(result)
            }
            return results
        }
    }

    @Test("20 concurrent misses for one URL make exactly one upstream request and get identical bodies")
    func twentyMissesOneRequest() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 200_000
            origin.setRoute(
                "/shared.bin",
                TestResponse(
                    headers: [("Cache-Control", "max-age=600")], body: .generated(length: length), faults: [.delayHead(.milliseconds(300))])
            )
            let results = try await Self.fetchConcurrently(origin.url("/shared.bin"), proxy: larder.proxyURL, count: 20)
            #expect(origin.requestCount("/shared.bin") == 1, "concurrent misses were not coalesced")
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            for result in results {
                #expect(result.exitCode == 0)
                #expect(result.status == 200)
                #expect(Bytes(result.body) == expected)
            }
            let statuses = results.compactMap { $0.header("cache-status") }
            #expect(statuses.filter { $0.contains("stored") }.count == 1, "one leader stores: \(statuses)")
            #expect(statuses.filter { $0.contains("detail=coalesced") }.count >= 1, "\(statuses)")
        }
    }

    @Test(
        "20 concurrent misses for a response with an ETag and no freshness make one full download, reloads among them too"
    )
    func twentyMissesETagOnly() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 200_000
            origin.setRoute(
                "/etag-only.bin",
                TestResponse(headers: [("ETag", #""v1""#)], body: .generated(length: length), faults: [.delayHead(.milliseconds(300))]))
            let url = origin.url("/etag-only.bin")
            let results = try await withThrowingTaskGroup(of: CurlResult.self) { group in
                for index in 0..<20 {
                    // Two of them ask for validation, as a reload does: those that joined before the
                    // answer began get it, those later revalidate with its ETag.
                    let arguments = index < 2 ? ["-H", "Cache-Control: no-cache"] : []
                    group.addTask { try await Curl.run(url, proxy: larder.proxyURL, arguments: arguments, timeout: 40) }
                }
                var results: [CurlResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            for result in results {
                #expect(result.status == 200)
                #expect(Bytes(result.body) == expected)
            }
            let requests = origin.requests("/etag-only.bin")
            let full = requests.filter { $0.header("if-none-match") == nil }
            #expect(full.count == 1, "one full download, not \(full.count): \(results.compactMap { $0.header("cache-status") })")
            #expect(requests.count <= 3, "the others are none, or revalidations: \(requests.count)")
        }
    }

    @Test(
        "a request with its own If-None-Match does not lead a burst: its 304 stores nothing, so the plain requests beside it make one full download"
    )
    func conditionalRequestDoesNotLead() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 200_000
            let full = TestResponse(headers: [("ETag", #""v1""#)], body: .generated(length: length))
            origin.setRoute(
                "/browser-cached.bin",
                TestResponse(
                    headers: [("ETag", #""v1""#)], body: .generated(length: length),
                    faults: [
                        .delayHead(.milliseconds(300)),
                        .handler { request in
                            request.header("if-none-match") == #""v1""#
                                ? TestResponse(status: 304, headers: [("ETag", #""v1""#)]) : full
                        },
                    ]))
            let url = origin.url("/browser-cached.bin")
            // A browser that has its own copy asks first; 19 plain requests follow while its request is out.
            async let conditional = Curl.run(url, proxy: larder.proxyURL, arguments: ["-H", #"If-None-Match: "v1""#], timeout: 40)
            while origin.requestCount("/browser-cached.bin") == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let plain = try await Self.fetchConcurrently(url, proxy: larder.proxyURL, count: 19)
            #expect(try await conditional.status == 304)
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            for result in plain {
                #expect(result.status == 200)
                #expect(Bytes(result.body) == expected)
            }
            let downloads = origin.requests("/browser-cached.bin").filter {
                $0.header("if-none-match") == nil
            }
            #expect(downloads.count == 1, "one full download for the plain requests, not \(downloads.count)")
        }
    }

    @Test("a reload that arrives once the answer has begun is not handed that answer: it revalidates with the stored ETag")
    func reloadAfterTheAnswerBeganRevalidates() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 400_000
            origin.setRoute(
                "/streaming.bin",
                TestResponse(
                    headers: [("Cache-Control", "max-age=600"), ("ETag", #""v1""#)], body: .generated(length: length),
                    faults: [
                        .chunkSize(40_000), .delayChunks(.milliseconds(100)),
                        .handler { request in
                            request.header("if-none-match") == #""v1""#
                                ? TestResponse(status: 304, headers: [("Cache-Control", "max-age=600"), ("ETag", #""v1""#)])
                                : TestResponse(
                                    headers: [("Cache-Control", "max-age=600"), ("ETag", #""v1""#)], body: .generated(length: length),
                                    faults: [.chunkSize(40_000), .delayChunks(.milliseconds(100))])
                        },
                    ]))
            let url = origin.url("/streaming.bin")
            async let first = Curl.run(url, proxy: larder.proxyURL, timeout: 40)
            // Once the origin has the first request, its head is out at once and its body takes
            // about a second: the reload comes while it streams (or, on a slow machine, after it
            // is stored: a reload then revalidates all the same).
            while origin.requestCount("/streaming.bin") == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(200))
            let reload = try await Curl.run(url, proxy: larder.proxyURL, arguments: ["-H", "Cache-Control: no-cache"], timeout: 40)
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            #expect(try await first.status == 200)
            #expect(reload.status == 200)
            #expect(Bytes(reload.body) == expected)
            #expect(reload.header("cache-status")?.contains("detail=coalesced") != true, "\(reload.header("cache-status") ?? "")")
            let requests = origin.requests("/streaming.bin")
            #expect(requests.count == 2, "the reload went to the origin: \(requests.count) requests")
            #expect(requests.last?.header("if-none-match") == #""v1""#, "with the stored ETag")
        }
    }

    @Test("when the leader's body fails, its followers fetch for themselves and get answers without hanging")
    func leaderFailure() async throws {
        try await withProxy { larder, origin in
            let length: Int64 = 200_000
            let served = RequestCounter()
            origin.setRoute(
                "/flaky.bin",
                TestResponse(
                    headers: [("Cache-Control", "max-age=600")],
                    body: .generated(length: length),
                    faults: [
                        .delayHead(.milliseconds(300)),
                        .handler { _ in
                            // Only the first request is reset half way through its body.
                            let first = served.next() == 1
                            return TestResponse(
                                headers: [("Cache-Control", "max-age=600")],
                                body: .generated(length: length),
                                faults: first ? [.resetAfter(bytes: 50_000)] : []
                            )
                        },
                    ]
                )
            )
            let started = ContinuousClock.now
            let results = try await Self.fetchConcurrently(origin.url("/flaky.bin"), proxy: larder.proxyURL, count: 5)
            #expect(ContinuousClock.now - started < .seconds(20), "followers hung on a failed leader")
            let expected = Bytes(GeneratedBody.bytes(0..<length))
            let complete = results.filter { $0.exitCode == 0 && $0.status == 200 && Bytes($0.body) == expected }
            #expect(complete.count == 4, "every follower gets the whole body: \(results.map { ($0.exitCode, $0.status, $0.body.count) })")
            #expect(results.filter { $0.exitCode != 0 }.count == 1, "the leader's client sees its broken response")
            #expect(origin.requestCount("/flaky.bin") >= 2)
        }
    }
}

/// Counts requests across the origin's threads.
private final class RequestCounter: Sendable {
    private let count = Mutex(0)

    /// Counts one more and returns the new count.
    func next() -> Int {
        self.count.withLock { count in
            count += 1
            return count
        }
    }
}
