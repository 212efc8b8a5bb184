import Foundation
import LarderHTTP
import LarderStore
import LarderTestSupport
import Testing

/// What a web page's precache job may make Larder keep (docs/SERVING.md, "What is private and
/// where it is kept"): its pages are runtime entries within `--max-size`, and each page origin's
/// jobs and bytes per hour are bounded.
@Suite("End to end: page precache jobs inside the budget", .serialized)
struct PageJobBudgetTests {
    private static let mebibyte: Int64 = 1 << 20

    @Test(
        "a page's job of big files under a small --max-size: kept as runtime entries, evicted by later fetches, within the budget; its origin's next job gets 429"
    )
    func bigFilesWithinBudget() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        for index in 0..<5 {
            origin.setRoute(
                "/big\(index).bin",
                TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .generated(length: 3 * Self.mebibyte / 2)))
        }
        for index in 0..<3 {
            origin.setRoute(
                "/r\(index).bin",
                TestResponse(headers: [("Cache-Control", "max-age=600")], body: .bytes(Array(repeating: UInt8(index), count: 3 << 20))))
        }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let budget = 8 * Self.mebibyte
        let larder = try await LarderProcess(serve: ["--max-size", String(budget)], cacheDirectory: cache)
        defer { Task { await larder.tearDown() } }
        let store = try Store(directory: cache)
        defer { try? store.close() }

        let accepted = try await PrivacyTests.precache(
            (0..<5).map { "page " + origin.url("/big\($0).bin") }, origin: origin.baseURL, larder: larder)
        #expect(accepted.status == 202, "\(accepted.text)")
        let report = try await PrivacyTests.finished(accepted, larder: larder)
        #expect(report.contains("not fetched"), "the job stops once its origin's hourly bytes are spent: \(report)")
        let afterJob = try await store.totals()
        #expect(afterJob.precachedBytes == 0, "a page's job pins nothing: \(afterJob)")
        #expect(afterJob.runtimeBytes <= 3 * Self.mebibyte, "one file past the hour's 2 MiB at most: \(afterJob)")

        // The hour's bytes are spent: the origin's next job is refused, and the page can read why.
        let again = try await PrivacyTests.precache(["page " + origin.url("/big0.bin")], origin: origin.baseURL, larder: larder)
        #expect(again.status == 429, "\(again.text)")
        #expect(again.text.contains("an hour"), "\(again.text)")
        #expect(again.header("access-control-allow-origin") == origin.baseURL)

        // Runtime fetches evict least recently used first, the page job's entries included.
        for index in 0..<3 {
            #expect(try await Curl.run(origin.url("/r\(index).bin"), proxy: larder.proxyURL).status == 200)
            // Stored just after the answer, then evicted in the background.
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                let stored = try await store.entry(for: try CacheKey(url: origin.url("/r\(index).bin"))) != nil
                if stored, try await store.totals().bytes <= budget { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let totals = try await store.totals()
        #expect(totals.bytes <= budget, "\(totals)")
        #expect(totals.precachedBytes == 0)

        // /dev/offline.json shows the limits and the origin's use.
        let overview = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        let jobs = (try JSONSerialization.jsonObject(with: Data(overview.body)) as? [String: Any])?["pageJobs"] as? [String: Any]
        #expect(jobs?["jobsPerHour"] as? Int == 10)
        #expect((jobs?["bytesPerHour"] as? NSNumber)?.int64Value == budget / 4)
        let origins = jobs?["origins"] as? [[String: Any]] ?? []
        #expect(origins.first?["origin"] as? String == origin.baseURL && origins.first?["jobs"] as? Int == 1, "\(origins)")
        let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
        #expect(page.text.contains("Pages of other sites may ask Larder to precache"))
    }

    @Test(
        "a page's job keeps no body larger than its origin's hourly bytes and follows no redirect to another origin (issue 41, finding 3)"
    )
    func pageJobStaysSmallAndOnItsOrigin() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        let elsewhere = try await TestOrigin.start()
        defer { Task { try? await elsewhere.stop() } }
        origin.setRoute(
            "/huge.bin", TestResponse(headers: [("Content-Type", "application/octet-stream")], body: .generated(length: 4 * Self.mebibyte)))
        origin.setRoute("/hop.html", .text("", status: 302, headers: [("Location", elsewhere.url("/target.html"))]))
        elsewhere.setRoute("/target.html", .text("<p>another site's page</p>", contentType: "text/html"))
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let larder = try await LarderProcess(serve: ["--max-size", String(8 * Self.mebibyte)], cacheDirectory: cache)
        defer { Task { await larder.tearDown() } }

        let accepted = try await PrivacyTests.precache(
            ["page " + origin.url("/huge.bin"), "page " + origin.url("/hop.html")], origin: origin.baseURL, larder: larder)
        #expect(accepted.status == 202, "\(accepted.text)")
        let report = try await PrivacyTests.finished(accepted, larder: larder)
        #expect(report.contains("larger than"), "\(report)")
        #expect(report.contains("another origin"), "\(report)")
        #expect(elsewhere.requestCount("/target.html") == 0, "the redirect to another site is not followed")
        let store = try Store(directory: cache)
        defer { try? store.close() }
        #expect(try await store.entry(for: try CacheKey(url: origin.url("/huge.bin"))) == nil)
        #expect(try await store.totals().bytes < 2 * Self.mebibyte)
    }

    @Test("a page origin may ask for ten jobs an hour: the eleventh gets 429 naming the limit, another origin's does not")
    func jobsPerHour() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute("/page.html", .text("page", contentType: "text/html"))
        let other = try await TestOrigin.start()
        defer { Task { try? await other.stop() } }
        other.setRoute("/page.html", .text("page", contentType: "text/html"))
        let larder = try await LarderProcess()
        defer { Task { await larder.tearDown() } }
        for _ in 0..<10 {
            let accepted = try await PrivacyTests.precache([origin.url("/page.html")], origin: origin.baseURL, larder: larder)
            #expect(accepted.status == 202, "\(accepted.text)")
            // Finished before the next: the limit of jobs at once is not what refuses.
            _ = try await PrivacyTests.finished(accepted, larder: larder)
        }
        let refused = try await PrivacyTests.precache([origin.url("/page.html")], origin: origin.baseURL, larder: larder)
        #expect(refused.status == 429)
        #expect(refused.text.contains("at most 10 precache jobs an hour"), "\(refused.text)")
        #expect(refused.header("access-control-allow-origin") == origin.baseURL)
        #expect(try await PrivacyTests.precache([other.url("/page.html")], origin: other.baseURL, larder: larder).status == 202)
        // The user's own jobs are not a page's: no limit.
        #expect(try await PrivacyTests.precache([origin.url("/page.html")], origin: nil, larder: larder).status == 202)
    }

    @Test(
        "the pages of every site together may ask for thirty jobs an hour: a fourth site's first job gets 429 naming the shared limit (issue 41, finding 3)"
    )
    func allSitesTogether() async throws {
        var started: [TestOrigin] = []
        for _ in 0..<4 {
            let origin = try await TestOrigin.start()
            origin.setRoute("/page.html", .text("page", contentType: "text/html"))
            started.append(origin)
        }
        let origins = started
        defer { Task { for origin in origins { try? await origin.stop() } } }
        let larder = try await LarderProcess()
        defer { Task { await larder.tearDown() } }
        for origin in origins.prefix(3) {
            for _ in 0..<10 {
                let accepted = try await PrivacyTests.precache([origin.url("/page.html")], origin: origin.baseURL, larder: larder)
                #expect(accepted.status == 202, "\(accepted.text)")
                _ = try await PrivacyTests.finished(accepted, larder: larder)
            }
        }
        let fourth = origins[3]
        let refused = try await PrivacyTests.precache([fourth.url("/page.html")], origin: fourth.baseURL, larder: larder)
        #expect(refused.status == 429, "\(refused.text)")
        #expect(refused.text.contains("pages of other sites together may ask for at most 30 precache jobs an hour"), "\(refused.text)")
        #expect(fourth.requestCount("/page.html") == 0)
        // The user's own jobs are not a page's.
        #expect(try await PrivacyTests.precache([fourth.url("/page.html")], origin: nil, larder: larder).status == 202)
    }
}
