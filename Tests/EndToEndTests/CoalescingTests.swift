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
        "20 concurrent misses for a response with an ETag and no freshness make one full download; followers asking for validation send the ETag"
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
                    // Two of them ask for validation, as a reload does.
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
