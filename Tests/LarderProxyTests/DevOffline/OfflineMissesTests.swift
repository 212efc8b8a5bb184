import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

@Suite("Offline misses: the record, its groups per origin and game, and honest readiness")
struct OfflineMissesTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private static func url(_ text: String) throws -> HTTPURL {
        try HTTPURL(parsing: text)
    }

    private static func record(_ misses: OfflineMisses, _ text: String, referer: String? = nil, at seconds: Double) throws {
        misses.record(url: try Self.url(text), method: "GET", referer: referer, reason: .upstreamUnreachable, now: Self.start + seconds)
    }

    @Test("newest first; a repeat counts, keeps its first time and moves to the front")
    func orderAndDeduplication() throws {
        let misses = OfflineMisses(capacity: 10)
        try Self.record(misses, "http://app.example/a.js", at: 1)
        try Self.record(misses, "http://app.example/b.js", referer: "http://app.example/", at: 2)
        try Self.record(misses, "http://app.example/a.js#x", referer: "http://app.example/page", at: 3)
        let snapshot = misses.snapshot()
        #expect(snapshot.map(\.url) == ["http://app.example/a.js", "http://app.example/b.js"], "the fragment is not part of the URL")
        let a = try #require(snapshot.first)
        #expect(a.count == 2)
        #expect(a.firstSeen == Self.start + 1)
        #expect(a.lastSeen == Self.start + 3)
        #expect(a.referer == "http://app.example/page")
        #expect(a.origin == "http://app.example")
        #expect(snapshot.last?.count == 1)
    }

    @Test("at capacity the URL missed longest ago gives way; a repeat keeps a URL in")
    func bounded() throws {
        let misses = OfflineMisses(capacity: 3)
        for (index, name) in ["one", "two", "three"].enumerated() {
            try Self.record(misses, "http://app.example/\(name)", at: Double(index))
        }
        try Self.record(misses, "http://app.example/one", at: 10)
        try Self.record(misses, "http://app.example/four", at: 11)
        #expect(misses.snapshot().map(\.url) == ["http://app.example/four", "http://app.example/one", "http://app.example/three"])
        for index in 0..<500 {
            try Self.record(misses, "http://app.example/many/\(index)", at: 100 + Double(index))
        }
        #expect(misses.snapshot().count == 3)
        #expect(misses.snapshot().first?.url == "http://app.example/many/499")
    }

    @Test("a long Referer is cut; forget removes a URL")
    func refererAndForget() throws {
        let misses = OfflineMisses(capacity: 3)
        let long = "http://app.example/" + String(repeating: "r", count: 10_000)
        try Self.record(misses, "http://app.example/a.js", referer: long, at: 1)
        #expect(misses.snapshot().first?.referer?.utf8.count == OfflineMisses.maximumRefererLength)
        misses.forget(url: "http://app.example/a.js")
        #expect(misses.snapshot().isEmpty)
    }

    @Test("only answers the origin could not give and nothing stored could replace are recorded")
    func whatCounts() throws {
        let misses = OfflineMisses()
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "http://app.example/x", headers: ["Referer": "http://app.example/"])
        let url = try Self.url("http://app.example/x")
        for status in [
            CacheStatus.hit(detail: "offline"), .hit(detail: "upstream-unreachable"), .forward(.uriMiss, detail: "cache-only"),
            .forward(.uriMiss, status: 200, stored: true), .forward(.uriMiss, status: 503, detail: "upstream-unreachable"),
            .forward(.bypass, detail: "offline"),
        ] {
            misses.record(head, url: url, cacheStatus: status, now: Date())
        }
        #expect(misses.snapshot().isEmpty)
        misses.record(head, url: url, cacheStatus: .forward(.uriMiss, detail: "upstream-backoff"), now: Date())
        let miss = try #require(misses.snapshot().first)
        #expect(miss.reason == .upstreamBackoff)
        #expect(miss.referer == "http://app.example/")
        #expect(miss.method == "GET")
    }

    private static func game(_ slug: String, root: String, lastRun: Date = start) -> GameReport {
        let record = GameRecord(
            slug: slug, root: root, manifestURL: root + "/offline.meta.json", displayName: slug.capitalized, state: .ready, filesListed: 2,
            filesCached: 2, bytes: 10, lastRun: lastRun, lastError: nil, manifestRevision: nil, listOrder: 0)
        return GameReport(record, missing: [])
    }

    @Test("grouped per origin and per game: by the URL's path under a game root, else by its Referer; the deepest root wins")
    func groups() throws {
        let misses = OfflineMisses()
        try Self.record(misses, "http://other.example/x.js", at: 1)
        try Self.record(misses, "https://api.example/settings?17", referer: "http://app.example/games/flip/index.html", at: 2)
        try Self.record(misses, "http://app.example/games/flip/chunk.js", at: 3)
        try Self.record(misses, "http://app.example/games/flipper/a.js", at: 4)
        try Self.record(misses, "http://app.example/games/flip/deep/more/b.js", at: 5)
        try Self.record(misses, "http://app.example/games/flip", at: 6)
        try Self.record(misses, "http://app.example/api/me", referer: "http://app.example/games/flip", at: 7)
        let games = [
            Self.game("site", root: "http://app.example"), Self.game("flip", root: "http://app.example/games/flip"),
            Self.game("more", root: "http://app.example/games/flip/deep/more"),
        ]
        let report = OfflineMissesReport(misses: misses.snapshot(), capacity: misses.capacity, games: games)
        let groups = report.groups.map { "\($0.origin) \($0.game ?? "-"): " + $0.misses.map(\.url).joined(separator: " ") }
        #expect(
            groups == [
                "http://app.example flip: http://app.example/api/me http://app.example/games/flip http://app.example/games/flip/chunk.js",
                "http://app.example more: http://app.example/games/flip/deep/more/b.js",
                "http://app.example site: http://app.example/games/flipper/a.js",
                "https://api.example flip: https://api.example/settings?17",
                "http://other.example -: http://other.example/x.js",
            ])
        #expect(report.urls == 7)
        #expect(report.groups.first?.gameName == "Flip")
    }

    @Test("a game with GET misses since its last precache is not ready, and says how many; older misses and writes do not count")
    func honestReadiness() throws {
        let misses = OfflineMisses()
        try Self.record(misses, "http://app.example/games/flip/a.js", at: -10)
        try Self.record(misses, "http://app.example/games/word/a.js", at: 5)
        try Self.record(misses, "http://app.example/games/word/b.js", at: 6)
        // A write the origin could not take is not something precache could fix.
        misses.record(
            url: try Self.url("http://app.example/games/flip/save"), method: "POST", referer: nil, reason: .upstreamUnreachable,
            now: Self.start + 7)
        var report = OfflineReport(
            generatedAt: Self.start, cacheDirectory: "/tmp", store: StoreReport(totals: .zero, maxSize: nil),
            games: [Self.game("flip", root: "http://app.example/games/flip"), Self.game("word", root: "http://app.example/games/word")],
            pages: [])
        report.add(offlineMisses: misses.snapshot(), capacity: misses.capacity)
        let flip = try #require(report.games.first)
        #expect(flip.ready, "its miss came before its last precache")
        #expect(flip.offlineMisses == [])
        let word = try #require(report.games.last)
        #expect(!word.ready)
        #expect(word.readiness == "2 offline misses")
        #expect(word.offlineMisses?.map(\.url) == ["http://app.example/games/word/b.js", "http://app.example/games/word/a.js"])
        #expect(DevOfflineViews.readySummary(report.games) == "1 of 2 games work offline right now. Not ready: Word (2 offline misses).")
    }
}
