import Foundation
import LarderHTTP
import Synchronization
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

/// /dev/offline leads to the fix (docs/SERVING.md, "Offline misses", "The browser's own
/// requests"): one row per endpoint, the browser's own apart and without buttons, notes in a
/// user's words that follow the fix.
@Suite("/dev/offline: offline misses that lead to the fix")
struct OfflineMissTriagePagesTests {
    let own = ["Origin": DevOfflineFixture.ownOrigin]

    @Test("an endpoint missed under new cache-busters is one row; the browser's updater is one row apart, with no Answer offline button")
    func groupedAndApart() async throws {
        let fixture = try DevOfflineFixture()
        for stamp in ["1795492696035", "1795492697035", "1795492698035"] {
            fixture.offlineMisses.record(
                url: try HTTPURL(parsing: "https://app.example/api/feed?_=\(stamp)&page=1"), method: "GET", referer: "https://app.example/",
                reason: .upstreamBackoff, now: Date())
        }
        fixture.offlineMisses.record(
            url: try HTTPURL(parsing: "https://app.example/api/feed?page=2"), method: "GET", referer: "https://app.example/",
            reason: .upstreamUnreachable, now: Date())
        for nonce in ["13:2734987", "13:9911223", "13:5550001"] {
            fixture.browserMisses.record(
                url: try HTTPURL(parsing: "http://update.googleapis.com/service/update2/json?cup2key=\(nonce)"), method: "POST",
                referer: nil,
                reason: .upstreamUnreachable, note: OfflineMisses.uncachedMethodNote("POST"), methodNotStored: true, now: Date())
        }

        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let misses = try #require(report["offlineMisses"] as? [String: Any])
        let rows = (misses["groups"] as? [[String: Any]] ?? []).flatMap { $0["misses"] as? [[String: Any]] ?? [] }
        #expect(rows.count == 2)
        let feed = try #require(rows.first { ($0["endpoint"] as? String) == "https://app.example/api/feed?page=1" })
        #expect(feed["count"] as? Int == 3)
        #expect(feed["url"] as? String == "https://app.example/api/feed?_=1795492698035&page=1", "the latest URL, as before")
        #expect((feed["note"] as? String)?.hasPrefix("Larder stopped trying the site for a while after it failed several times.") == true)
        let browser = misses["browserMisses"] as? [[String: Any]] ?? []
        #expect(browser.count == 1)
        #expect(browser.first?["count"] as? Int == 3)
        #expect(browser.first?["endpoint"] as? String == "http://update.googleapis.com/service/update2/json")
        #expect((browser.first?["note"] as? String)?.contains("The browser asked for this on its own") == true)

        let html = await fixture.get("/dev/offline").body
        let parts = html.components(separatedBy: "The browser's own requests")
        #expect(parts.count == 2)
        #expect(
            parts[0].contains("https://app.example/api/feed?_=1795492698035&amp;page=1")
                || parts[0].contains("https://app.example/api/feed?_=1795492698035&page=1"))
        #expect(!parts[0].contains("update.googleapis.com"), "the updater is not among the app's misses")
        #expect(!html.contains("actions/answer-offline"), "no Answer offline for the browser's own requests")
        #expect(!html.contains(">upstream-backoff<"), "the pill says it in words")
        #expect(html.contains("site not tried"))
    }

    @Test("Answer offline: the time is kept, the row says so and whether it missed since, and its button and old note go")
    func answerOfflineFollowed() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_795_492_696))
        let fixture = try DevOfflineFixture(now: { clock.withLock { $0 } })
        let url = "https://app.example/_dash-update-component"
        func miss(forward method: Bool) throws {
            fixture.offlineMisses.record(
                url: try HTTPURL(parsing: url), method: "POST", referer: "https://app.example/dash", reason: .upstreamUnreachable,
                note: method ? OfflineMisses.uncachedMethodNote("POST") : nil, methodNotStored: method, now: clock.withLock { $0 })
        }
        try miss(forward: true)
        var html = await fixture.get("/dev/offline").body
        #expect(html.contains("actions/answer-offline"))
        #expect(html.contains("POST requests are not stored on defaults"))

        clock.withLock { $0 += 60 }
        let chosen = await fixture.post(
            "/dev/offline/actions/answer-offline", form: [("url", url), ("method", "POST"), ("return", "/dev/offline")], headers: self.own)
        #expect(chosen.status == 303)
        let file = try String(contentsOfFile: fixture.answeredOffline.path, encoding: .utf8)
        #expect(file.contains(#""chosenAt":"2026-11-24T03:59:16Z""#))

        clock.withLock { $0 += 60 }
        var row = try Self.row(await fixture.get("/dev/offline.json"))
        #expect((row["fix"] as? [String: Any])?["kind"] as? String == "answer-offline")
        #expect((row["fix"] as? [String: Any])?["missedSince"] as? Bool == false)
        #expect((row["note"] as? String)?.contains("Answer offline was chosen 1 min ago") == true)
        #expect((row["note"] as? String)?.contains("it has not missed since") == true)
        html = await fixture.get("/dev/offline").body
        #expect(!html.contains("POST requests are not stored on defaults"), "the old note does not stay on a fixed row")
        #expect(!html.contains("actions/answer-offline\""), "no second Answer offline")

        // Keyed now, but nothing was stored for this body: it misses again.
        try miss(forward: false)
        row = try Self.row(await fixture.get("/dev/offline.json"))
        #expect((row["fix"] as? [String: Any])?["missedSince"] as? Bool == true)
        #expect((row["note"] as? String)?.contains("but it has missed since") == true)
    }

    @Test("a health check's miss is the honest answer: the game stays ready, no Add to precache, and its row says why")
    func healthCheckMiss() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(
            slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"], lastRun: Date(timeIntervalSinceNow: -60))
        fixture.offlineMisses.record(
            url: try HTTPURL(parsing: "http://games.example/flip/api/healthz"), method: "GET", referer: "http://games.example/flip/",
            reason: .upstreamUnreachable, causes: ["health-check"], now: Date())
        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let game = try #require((report["games"] as? [[String: Any]])?.first)
        #expect(game["ready"] as? Bool == true)
        let html = await fixture.get("/dev/offline").body
        #expect(html.contains("This is a health check"))
        #expect(!html.contains("actions/add-to-precache"))
        let page = await fixture.get("/dev/offline/games/flip").body
        #expect(!page.contains("actions/add-to-precache"), "not among the game's misses either")
    }

    /// The one app miss of a report.
    private static func row(_ response: DevOfflinePages.Response) throws -> [String: Any] {
        let report = try DevOfflineFixture.json(response)
        let groups = (report["offlineMisses"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return try #require(groups.first?["misses"] as? [[String: Any]])[0]
    }
}
