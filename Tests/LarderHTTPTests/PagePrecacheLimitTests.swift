import Foundation
import LarderHTTP
import Testing

/// What the web pages of one origin may make Larder precache (docs/SERVING.md, "What is private
/// and where it is kept").
@Suite("Page precache limits")
struct PagePrecacheLimitTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)
    private static let mebibyte: Int64 = 1 << 20

    private static func job(minutesAgo: Double, bytes: Int64 = 0, finished: Bool = true) -> PagePrecacheLimit.Job {
        PagePrecacheLimit.Job(submitted: Self.now.addingTimeInterval(-minutesAgo * 60), bytes: bytes, isFinished: finished)
    }

    @Test("the byte bound is a quarter of --max-size, or 256 MiB without one")
    func byteBound() {
        #expect(PagePrecacheLimit(budget: 32 * Self.mebibyte).bytesPerHour == 8 * Self.mebibyte)
        #expect(PagePrecacheLimit(budget: 3).bytesPerHour == 1)
        #expect(PagePrecacheLimit(budget: nil).bytesPerHour == 256 * Self.mebibyte)
        #expect(PagePrecacheLimit(budget: nil).jobsPerHour == 10)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var jobs: [PagePrecacheLimit.Job]
        var refusal: PagePrecacheLimit.Refusal?
        var bytesLeft: Int64
        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(name: "no jobs: allowed, the whole hour's bytes left", jobs: [], refusal: nil, bytesLeft: 8 * Self.mebibyte),
        Case(
            name: "five unfinished jobs: refused until one finishes",
            jobs: (0..<5).map { _ in Self.job(minutesAgo: 1, finished: false) }, refusal: .unfinished, bytesLeft: 8 * Self.mebibyte),
        Case(
            name: "four unfinished: allowed", jobs: (0..<4).map { _ in Self.job(minutesAgo: 1, finished: false) }, refusal: nil,
            bytesLeft: 8 * Self.mebibyte),
        Case(
            name: "ten finished jobs this hour: refused, whatever they fetched",
            jobs: (0..<10).map { Self.job(minutesAgo: Double($0)) }, refusal: .jobsPerHour(10), bytesLeft: 8 * Self.mebibyte),
        Case(
            name: "ten jobs, one over an hour ago: allowed",
            jobs: (0..<9).map { Self.job(minutesAgo: Double($0)) } + [Self.job(minutesAgo: 61)], refusal: nil,
            bytesLeft: 8 * Self.mebibyte),
        Case(
            name: "the hour's bytes spent (one job passed them by a file): refused",
            jobs: [Self.job(minutesAgo: 5, bytes: 40 * Self.mebibyte)], refusal: .bytesPerHour(8 * Self.mebibyte), bytesLeft: 0),
        Case(
            name: "part of the bytes spent: allowed, the rest left",
            jobs: [Self.job(minutesAgo: 5, bytes: 3 * Self.mebibyte), Self.job(minutesAgo: 2, bytes: 1 * Self.mebibyte)], refusal: nil,
            bytesLeft: 4 * Self.mebibyte),
        Case(
            name: "bytes of over an hour ago count no more",
            jobs: [Self.job(minutesAgo: 61, bytes: 40 * Self.mebibyte)], refusal: nil, bytesLeft: 8 * Self.mebibyte),
    ]

    @Test("jobs at once, jobs per hour, bytes per hour", arguments: Self.cases)
    func limits(_ example: Case) {
        let limit = PagePrecacheLimit(budget: 32 * Self.mebibyte)
        #expect(limit.refusal(jobs: example.jobs, now: Self.now) == example.refusal)
        #expect(limit.bytesLeft(jobs: example.jobs, now: Self.now) == example.bytesLeft)
    }

    @Test("the pages of every origin together: three origins' jobs at once, jobs and bytes an hour, bytes at most half of --max-size")
    func allOrigins() {
        let limit = PagePrecacheLimit(budget: 32 * Self.mebibyte)
        #expect(limit.allOriginsJobsPerHour == 30)
        #expect(limit.allOriginsBytesPerHour == 16 * Self.mebibyte, "half of --max-size, less than three origins' 24 MiB")
        #expect(PagePrecacheLimit(budget: nil).allOriginsBytesPerHour == 768 * Self.mebibyte)
        let mine = [Self.job(minutesAgo: 1)]
        // Thirty jobs of other origins this hour (each origin within its own ten): refused.
        let others = (0..<30).map { Self.job(minutesAgo: Double($0)) }
        #expect(limit.refusal(jobs: [], allJobs: others, now: Self.now) == .allOriginsJobsPerHour(30))
        #expect(limit.refusal(jobs: mine, allJobs: mine + others.dropFirst(2), now: Self.now) == nil)
        // Fifteen unfinished jobs of other origins: refused until one finishes; five are another origin's own limit only.
        let running = (0..<15).map { _ in Self.job(minutesAgo: 1, finished: false) }
        #expect(limit.refusal(jobs: [], allJobs: running, now: Self.now) == .allOriginsUnfinished)
        #expect(limit.refusal(jobs: [], allJobs: Array(running.prefix(5)), now: Self.now) == nil)
        // Other origins spent the hour's bytes of every origin together: none left for this one.
        let spent = [Self.job(minutesAgo: 5, bytes: 16 * Self.mebibyte)]
        #expect(limit.refusal(jobs: [], allJobs: spent, now: Self.now) == .allOriginsBytesPerHour(16 * Self.mebibyte))
        #expect(
            limit.bytesLeft(jobs: [], allJobs: [Self.job(minutesAgo: 5, bytes: 13 * Self.mebibyte)], now: Self.now) == 3 * Self.mebibyte)
        #expect(limit.bytesLeft(jobs: mine, allJobs: mine, now: Self.now) == 8 * Self.mebibyte, "its own hour's bytes first")
        // An origin's own limit is named first.
        let ownTen = (0..<10).map { Self.job(minutesAgo: Double($0)) }
        #expect(limit.refusal(jobs: ownTen, allJobs: ownTen + others, now: Self.now) == .jobsPerHour(10))
    }

    @Test("a refusal names its limit")
    func messages() {
        #expect(
            PagePrecacheLimit.Refusal.unfinished.message(origin: "https://a.example").contains("at most 5 precache jobs queued or running"))
        #expect(PagePrecacheLimit.Refusal.jobsPerHour(10).message(origin: "https://a.example").contains("at most 10 precache jobs an hour"))
        #expect(
            PagePrecacheLimit.Refusal.bytesPerHour(8 * Self.mebibyte).message(origin: "https://a.example").contains(
                "at most 8.0 MiB an hour"))
        #expect(
            PagePrecacheLimit.Refusal.allOriginsJobsPerHour(30).message(origin: "https://a.example").contains(
                "pages of other sites together may ask for at most 30 precache jobs an hour"))
    }
}
