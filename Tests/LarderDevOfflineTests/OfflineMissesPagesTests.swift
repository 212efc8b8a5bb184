import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

@Suite("/dev/offline: offline misses, add to precache, extra URLs and who may read the JSON")
struct OfflineMissesPagesTests {
    let own = ["Origin": DevOfflineFixture.ownOrigin]

    private static func miss(_ fixture: DevOfflineFixture, _ url: String, method: String = "GET", referer: String? = nil) throws {
        fixture.offlineMisses.record(url: try HTTPURL(parsing: url), method: method, referer: referer, reason: .offline, now: Date())
    }

    @Test("the overview lists misses per origin and game, newest first; the game is not ready and shows them, with buttons")
    func overview() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(
            slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"], lastRun: Date(timeIntervalSinceNow: -60))
        try Self.miss(fixture, "http://games.example/flip/lazy.js")
        try Self.miss(fixture, "https://api.example/settings?1795492696035", referer: "http://games.example/flip/index.html")
        try Self.miss(fixture, "http://elsewhere.example/form", method: "POST")

        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let misses = try #require(report["offlineMisses"] as? [String: Any])
        #expect(misses["urls"] as? Int == 3)
        #expect(misses["capacity"] as? Int == 5)
        let groups = misses["groups"] as? [[String: Any]] ?? []
        #expect(groups.map { $0["origin"] as? String } == ["http://elsewhere.example", "https://api.example", "http://games.example"])
        #expect(groups.map { $0["game"] as? String } == [nil, "flip", "flip"])
        let api = try #require((groups[1]["misses"] as? [[String: Any]])?.first)
        #expect(api["url"] as? String == "https://api.example/settings?1795492696035")
        #expect(api["reason"] as? String == "offline")
        #expect(api["count"] as? Int == 1)
        #expect(api["referer"] as? String == "http://games.example/flip/index.html")
        let game = try #require((report["games"] as? [[String: Any]])?.first)
        #expect(game["ready"] as? Bool == false)
        #expect(game["readiness"] as? String == "2 offline misses")
        #expect((game["offlineMisses"] as? [[String: Any]])?.count == 2)

        let html = await fixture.get("/dev/offline").body
        #expect(html.contains("Not ready: Flip (2 offline misses)."))
        #expect(!html.contains("works offline right now"))
        #expect(html.contains("<h2 id=\"offline-misses\">Offline misses"))
        #expect(html.contains("2 requests could not be answered offline since the last precache:"))
        #expect(
            html.contains(
                "<input type=\"hidden\" name=\"url\" value=\"https://api.example/settings?1795492696035\"><input type=\"hidden\" name=\"game\" value=\"flip\">"
            ))
        // Two in the game card, two in the list; none for the POST, which precache cannot fetch.
        #expect(html.occurrences(of: "action=\"/dev/offline/actions/add-to-precache\"") == 4)
        #expect(!html.contains("{{"))
        let page = await fixture.get("/dev/offline/games/flip").body
        #expect(page.contains("could not be answered while the origin could not since its last precache"))
        #expect(page.occurrences(of: "action=\"/dev/offline/actions/add-to-precache\"") == 2)
        let detail = try DevOfflineFixture.json(await fixture.get("/dev/offline/games/flip.json"))
        #expect((detail["game"] as? [String: Any])?["ready"] as? Bool == false)
    }

    @Test("add to precache: refused from another origin; from the page it records the URL with its game and queues the game with it")
    func addToPrecache() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"])
        let url = "https://api.example/settings?17"
        try Self.miss(fixture, url, referer: "http://games.example/flip/")

        let foreign = await fixture.post(
            "/dev/offline/actions/add-to-precache", form: [("url", url), ("game", "flip")], headers: ["Origin": "https://evil.example"])
        #expect(foreign.status == 403)
        #expect(foreign.headers.first(name: "access-control-allow-origin") == nil)
        #expect(try await fixture.store.extraURLs().isEmpty)
        #expect(fixture.jobs.lines.isEmpty)

        let added = await fixture.post(
            "/dev/offline/actions/add-to-precache", form: [("url", url), ("game", "flip"), ("return", "/dev/offline")], headers: self.own)
        #expect(added.status == 303)
        let location = try #require(added.headers.first(name: "location"))
        #expect(location.hasPrefix("/dev/offline/games/flip?job=job-1&flash="))
        #expect(
            FormFields(String(location.split(separator: "?")[1]))["flash"]
                == "Added \(url) to Flip; precaching Flip with it now (job job-1). Reload to follow it.")
        let extras = try await fixture.store.extraURLs()
        #expect(extras.map(\.url) == [url])
        #expect(extras.first?.gameSlug == "flip")
        #expect(fixture.jobs.lines == [["http://games.example/flip/offline.meta.json"]])
        #expect(fixture.jobs.extraURLs == [[url]])
        #expect(fixture.offlineMisses.snapshot().isEmpty, "an added URL is no longer listed as missed")

        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let extra = try #require((report["extraURLs"] as? [[String: Any]])?.first)
        #expect(extra["url"] as? String == url)
        #expect(extra["game"] as? String == "flip")
        #expect(extra["state"] as? String == "pending")
        #expect(await fixture.get("/dev/offline").body.contains("<h2 id=\"extra-urls\">Extra URLs"))
        let game = try DevOfflineFixture.json(await fixture.get("/dev/offline/games/flip.json"))
        #expect((game["extraURLs"] as? [[String: Any]])?.first?["url"] as? String == url)

        // Precaching the game again takes its extra URLs along.
        _ = await fixture.post("/dev/offline/actions/precache-game", form: [("game", "flip")], headers: self.own)
        #expect(fixture.jobs.extraURLs.last == [url])
    }

    @Test("add to precache without a game: precached with every run; bad input is named; remove-extra-url removes it")
    func withoutGame() async throws {
        let fixture = try DevOfflineFixture()
        let added = await fixture.post(
            "/dev/offline/actions/add-to-precache", form: [("url", "http://docs.example/app.js#top")], headers: self.own)
        #expect(added.status == 303)
        #expect(
            FormFields(String(added.headers.first(name: "location")?.split(separator: "?")[1] ?? ""))["flash"]
                == "Added http://docs.example/app.js to the URLs precached with every run; precaching it now (job job-1).")
        #expect(try await fixture.store.extraURLs().map(\.gameSlug) == [nil])
        #expect(fixture.jobs.lines == [[]])
        #expect(fixture.jobs.extraURLs == [["http://docs.example/app.js"]])

        let notURL = await fixture.post("/dev/offline/actions/add-to-precache", form: [("url", "ftp://x")], headers: self.own)
        #expect(notURL.status == 400)
        #expect(notURL.body.contains("ftp://x cannot be precached"))
        let noGame = await fixture.post(
            "/dev/offline/actions/add-to-precache", form: [("url", "http://docs.example/b.js"), ("game", "nope")], headers: self.own)
        #expect(noGame.headers.first(name: "location")?.contains("No%20game%20nope%20is%20recorded.") == true)
        #expect(try await fixture.store.extraURLs().count == 1)

        let removed = await fixture.post(
            "/dev/offline/actions/remove-extra-url", form: [("url", "http://docs.example/app.js")], headers: self.own)
        #expect(removed.status == 303)
        #expect(try await fixture.store.extraURLs().isEmpty)
    }

    @Test("/dev/offline.json answers an allowed Origin with Access-Control-Allow-Origin, others without; Vary: Origin always")
    func crossOrigin() async throws {
        let fixture = try DevOfflineFixture(statusOrigins: ["https://status.example"])
        try await fixture.storeGame(slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"])
        for (origin, allowed) in [
            ("http://games.example", nil), ("https://status.example", "https://status.example"),
            ("https://evil.example", nil), ("null", nil),
        ] as [(String, String?)] {
            let response = await fixture.get("/dev/offline.json", headers: ["Origin": origin])
            #expect(response.status == 200)
            #expect(response.headers.first(name: "access-control-allow-origin") == allowed, "\(origin)")
            #expect(response.headers.first(name: "vary") == "Origin")
        }
        let html = await fixture.get("/dev/offline", headers: ["Origin": "http://games.example"])
        #expect(html.headers.first(name: "access-control-allow-origin") == nil, "only the JSON")
        let control = await fixture.post(
            "/dev/offline/actions/offline", form: [("offline", "on")], headers: ["Origin": "http://games.example"])
        #expect(control.status == 403)
        #expect(control.headers.first(name: "access-control-allow-origin") == nil)
    }
}
