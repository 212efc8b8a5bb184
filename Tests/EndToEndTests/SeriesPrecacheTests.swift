import Foundation
import LarderHTTP
import LarderStore
import LarderTestSupport
import Testing

/// `larder precache` with `series` lines, against a local origin whose log keeps request order.
@Suite("End to end: dated series")
struct SeriesPrecacheTests {
    /// Today in UTC, as the binary computes it for `tz=UTC` (a run straddling midnight UTC could
    /// see another day; the tests take a minute at most).
    static func today() -> CalendarDay {
        CalendarDay(Date(), in: TimeZone(identifier: "UTC")!)
    }

    /// Serves `/p/puzzles.json` listing `days` (WordErase's shape) and one small file per day.
    static func serveSeries(_ origin: TestOrigin, days: [CalendarDay]) {
        let names = days.map { "\"\($0).bin\"" }.joined(separator: ",")
        origin.setRoute(
            "/p/puzzles.json",
            .text(#"{"last_updated": "now", "available_puzzles": [\#(names)]}"#, contentType: "application/json"))
        for day in days {
            origin.setRoute("/p/\(day).bin", .text("puzzle \(day)", contentType: "application/octet-stream"))
        }
    }

    static func write(_ text: String, in directory: String) throws -> String {
        let path = directory + "/games.txt"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a series precaches today first, then past days newest first, then at most 7 future days in date order")
    func order() async throws {
        let origin = try await TestOrigin.start()
        let today = Self.today()
        // 5 past days and 10 future days, listed oldest first.
        let days = (-5...10).map { today.adding(days: $0) }
        Self.serveSeries(origin, days: days)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.write("series \(origin.url("/p/puzzles.json")) tz=UTC\n", in: directory)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache", "--concurrency", "1", "--json"])
        #expect(run.exitCode == 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        let requested = origin.requests().map(\.path).filter { $0.hasSuffix(".bin") }
        let expected = ([0, -1, -2, -3, -4, -5] + Array(1...7)).map { "/p/\(today.adding(days: $0)).bin" }
        #expect(requested == expected)
        #expect(origin.requests().first?.path == "/p/puzzles.json", "the manifest comes first")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let series = (report?["series"] as? [[String: Any]])?.first
        #expect(series?["today"] as? String == today.description)
        #expect(series?["todayReady"] as? Bool == true)
        #expect(series?["daysCached"] as? Int == 13)
        #expect(series?["newestCached"] as? String == today.adding(days: 7).description)
        try await origin.stop()

        // Offline, today's file is served from the cache.
        let larder = try await LarderProcess(cacheDirectory: directory + "/cache")
        let answer = try await Curl.run(origin.url("/p/\(today).bin"), proxy: larder.proxyURL)
        #expect(answer.status == 200)
        #expect(answer.text == "puzzle \(today)")
        #expect(answer.header("cache-status")?.hasPrefix("larder; hit") == true)
        await larder.stop()
    }

    @Test(
        "at the default concurrency a backlog reaches the origin newest first, new connections slow and open ones fast: no day more than the per-host connection count out of place"
    )
    func backlogOrderInParallel() async throws {
        let origin = try await TestOrigin.start()
        // A new connection's first request arrives late (a handshake over a real network), a
        // request on today's connection at once: started in order is then not arriving in order.
        origin.setNewConnectionDelay(.milliseconds(300))
        let today = Self.today()
        let days = (-40...0).map { today.adding(days: $0) }
        Self.serveSeries(origin, days: days)
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.write("series \(origin.url("/p/puzzles.json")) tz=UTC\n", in: directory)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache"])
        #expect(run.exitCode == 0, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        let requested = origin.requests().map(\.path).filter { $0.hasSuffix(".bin") }
        #expect(requested.first == "/p/\(today).bin", "today first: \(requested)")
        let arrived = requested.dropFirst().compactMap { path in
            days.firstIndex { "/p/\($0).bin" == path }.map { today.days(to: days[$0]) }
        }
        #expect(arrived.count == 40)
        // Arrival position of each day against its place newest first (-1, -2, ...).
        let misplaced = arrived.enumerated().map { abs($0.offset - (-$0.element - 1)) }
        #expect(misplaced.max() ?? 0 <= 6, "days out of place by up to \(misplaced.max() ?? 0): \(arrived)")
        try await origin.stop()
    }

    @Test("a 2,000-day backlog listed after a game waits for today's file and every file of the game")
    func backlogWaits() async throws {
        let origin = try await TestOrigin.start()
        let today = Self.today()
        Self.serveSeries(origin, days: (-2000...0).map { today.adding(days: $0) })
        let gameFiles = (0..<20).map { "g/f\($0).js" }
        origin.setRoute(
            "/g/offline.meta.json",
            .text(#"{"files": [\#(gameFiles.map { "\"\($0)\"" }.joined(separator: ","))]}"#, contentType: "application/json"))
        for file in gameFiles {
            origin.setRoute("/\(file)", .text(file, contentType: "text/javascript"))
        }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.write("series \(origin.url("/p/puzzles.json")) tz=UTC\n\(origin.url("/g"))\n", in: directory)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache", "--json"])
        #expect(run.exitCode == 0, "stdout:\n\(run.stdout.prefix(2000))\nstderr:\n\(run.stderr)")
        let paths = origin.requests().map(\.path)
        let firstBacklog = try #require(paths.firstIndex { $0.hasSuffix(".bin") && $0 != "/p/\(today).bin" })
        let todayIndex = try #require(paths.firstIndex(of: "/p/\(today).bin"))
        #expect(todayIndex < firstBacklog)
        for file in gameFiles {
            let index = try #require(paths.firstIndex(of: "/\(file)"), "\(file) requested")
            #expect(index < firstBacklog, "\(file) came after the backlog started")
        }
        #expect(paths.filter { $0.hasSuffix(".bin") }.count == 2001)
    }

    @Test("a missing day is reported and the exit status is 1, as for other failed files; the rest is cached")
    func missingDay() async throws {
        let origin = try await TestOrigin.start()
        let today = Self.today()
        let missing = today.adding(days: -2)
        for offset in -3...0 where offset != -2 {
            let day = today.adding(days: offset)
            origin.setRoute("/t/\(day.description.replacingOccurrences(of: "-", with: "")).bin", .text("day \(day)"))
        }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.write("series \(origin.url("/t/{date:yyyyMMdd}.bin")) tz=UTC past=3 future=0\n", in: directory)

        let run = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache"])
        #expect(run.exitCode == 1)
        #expect(run.stdout.contains("missing 1"), "\(run.stdout)")
        let compact = missing.description.replacingOccurrences(of: "-", with: "")
        #expect(run.stdout.contains("\(compact).bin: answered HTTP 404"), "\(run.stdout)")
        #expect(origin.requestCount("/t/\(compact).bin") == 1, "a 404 is not retried")

        origin.resetRecords()
        let json = try await LarderCLI.run(["precache", list, "--cache-dir", directory + "/cache", "--json"])
        #expect(json.exitCode == 1)
        #expect(origin.requests().map(\.path) == ["/t/\(compact).bin"], "only the missing day is tried again")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let series = (report?["series"] as? [[String: Any]])?.first
        #expect(series?["todayReady"] as? Bool == true)
        #expect(series?["daysCached"] as? Int == 3)
        let missingDays = series?["missing"] as? [[String: String]] ?? []
        #expect(missingDays.map { $0["date"] } == [missing.description])
        try await origin.stop()
    }

    @Test("/dev/offline, its JSON and larder status show a series; Refresh now (from Larder's own page only) fetches the missing day")
    func visible() async throws {
        let origin = try await TestOrigin.start()
        let today = Self.today()
        let missing = today.adding(days: -1)
        for offset in -2...0 where offset != -1 {
            origin.setRoute("/t/\(today.adding(days: offset)).bin", .text("day"))
        }
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        let template = origin.url("/t/{date}.bin")
        let list = try Self.write("series \(template) tz=UTC past=2 future=0\n", in: directory)
        #expect(try await LarderCLI.run(["precache", list, "--cache-dir", cache]).exitCode == 1)

        let status = try await LarderCLI.run(["status", "--cache-dir", cache, "--proxy", "none"])
        #expect(status.stdout.contains("Series: today ready for 1 of 1"), "\(status.stdout)")
        #expect(status.stdout.contains("✓ today ready     \(template)"), "\(status.stdout)")
        #expect(status.stdout.contains("today \(today) (UTC), past 1 of 2 days, newest \(today), 1 missing"), "\(status.stdout)")

        let larder = try await LarderProcess(cacheDirectory: cache)
        let proxy = larder.proxyURL
        func series() async throws -> [String: Any] {
            let response = try await Curl.run(proxy + "/dev/offline.json", proxy: nil)
            let report = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return (report?["series"] as? [[String: Any]])?.first ?? [:]
        }
        let before = try await series()
        #expect(before["location"] as? String == template)
        #expect(before["today"] as? String == today.description)
        #expect(before["todayReady"] as? Bool == true)
        #expect(before["pastDays"] as? Int == 2)
        #expect(before["pastCached"] as? Int == 1)
        #expect(before["newestCached"] as? String == today.description)
        #expect(before["missingDays"] as? Int == 1)
        let page = try await Curl.run(proxy + "/dev/offline", proxy: nil)
        #expect(page.text.contains(template))
        #expect(page.text.contains("today ready"))
        #expect(page.text.contains("past 1 of 2 days, newest \(today), 1 missing"))
        #expect(page.text.contains(#"action="/dev/offline/actions/refresh-series""#))

        origin.setRoute("/t/\(missing).bin", .text("late"))
        func refresh(from pageOrigin: String) async throws -> CurlResult {
            try await Curl.run(
                proxy + "/dev/offline/actions/refresh-series", proxy: nil,
                arguments: ["-X", "POST", "-H", "Origin: \(pageOrigin)", "--data-urlencode", "series=\(template)"])
        }
        #expect(try await refresh(from: "https://evil.example").status == 403)
        #expect(origin.requestCount("/t/\(missing).bin") == 1, "a refused control queues nothing")
        #expect(try await refresh(from: proxy).status == 303)
        var after = before
        // The day's entry, then the series' record of it: wait for both.
        for _ in 0..<100 where after["missingDays"] as? Int != 0 || after["pastCached"] as? Int != 2 {
            try await Task.sleep(for: .milliseconds(100))
            after = try await series()
        }
        #expect(after["missingDays"] as? Int == 0)
        #expect(after["pastCached"] as? Int == 2)
        #expect(origin.requestCount("/t/\(missing).bin") == 2)
        #expect(origin.requestCount("/t/\(today).bin") == 1, "what is cached is not fetched again")
        await larder.stop()
        try await origin.stop()
    }
}
