import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

@Suite("Offline misses on /dev/offline: groups per origin and game, and honest readiness")
struct OfflineMissesReportTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private static func url(_ text: String) throws -> HTTPURL {
        try HTTPURL(parsing: text)
    }

    private static func record(_ misses: OfflineMisses, _ text: String, referer: String? = nil, at seconds: Double) throws {
        misses.record(url: try Self.url(text), method: "GET", referer: referer, reason: .upstreamUnreachable, now: Self.start + seconds)
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

    @Test("the browser's own /favicon.ico request from a game's page is listed, but the game stays ready; other misses still count")
    func faviconMissKeepsTheGameReady() throws {
        let misses = OfflineMisses()
        try Self.record(misses, "http://app.example/favicon.ico", referer: "http://app.example/games/flip/index.html", at: 5)
        try Self.record(misses, "http://word.example/favicon.ico", referer: "http://word.example/games/word/", at: 6)
        try Self.record(misses, "http://word.example/games/word/b.js", at: 7)
        var report = OfflineReport(
            generatedAt: Self.start, cacheDirectory: "/tmp", store: StoreReport(totals: .zero, maxSize: nil),
            games: [Self.game("flip", root: "http://app.example/games/flip"), Self.game("word", root: "http://word.example/games/word")],
            pages: [])
        report.add(offlineMisses: misses.snapshot(), capacity: misses.capacity)
        let flip = try #require(report.games.first)
        #expect(flip.offlineMisses?.map(\.url) == ["http://app.example/favicon.ico"])
        #expect(flip.ready)
        #expect(flip.readiness == "ready")
        let word = try #require(report.games.last)
        #expect(!word.ready)
        #expect(word.readiness == "1 offline miss")
        #expect(word.offlineMisses?.count == 2)
    }
}
