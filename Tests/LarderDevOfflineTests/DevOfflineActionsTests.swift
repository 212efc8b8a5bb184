import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

@Suite("/dev/offline: controls")
struct DevOfflineActionsTests {
    let own = ["Origin": DevOfflineFixture.ownOrigin]

    @Test("a control from another origin, or with neither Origin nor Referer, is refused with 403 and changes nothing")
    func foreignRefused() async throws {
        let fixture = try DevOfflineFixture()
        let key = try await fixture.storeEntry("http://site.example/keep.css")
        for headers in [["Origin": "https://evil.example"], ["Origin": "null"], ["Referer": "http://evil.example/"], [:]] {
            let response = await fixture.post("/dev/offline/actions/purge-entry", form: [("key", key.rawValue)], headers: headers)
            #expect(response.status == 403, "\(headers)")
            #expect(response.body.contains("Refused: not from Larder"))
            let offline = await fixture.post("/dev/offline/actions/offline", form: [("offline", "on")], headers: headers)
            #expect(offline.status == 403)
        }
        #expect(try await fixture.store.entry(for: key) != nil)
        #expect(fixture.offline.isOffline == false)
    }

    @Test("purge-entry from the page: 303 back with a flash; the entry is gone and its game is no longer ready")
    func purgeEntry() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(
            slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js", "http://games.example/flip/b.js"])
        let key = try CacheKey(url: "http://games.example/flip/a.js")
        let response = await fixture.post(
            "/dev/offline/actions/purge-entry",
            form: [("key", key.rawValue), ("return", "/dev/offline/entries?q=flip&page=1")],
            headers: self.own
        )
        #expect(response.status == 303)
        let location = try #require(response.headers.first(name: "location"))
        #expect(location.hasPrefix("/dev/offline/entries?q=flip&page=1&flash="))
        let flash = FormFields(String(location.split(separator: "?")[1]))["flash"]
        #expect(flash == "Purged http://games.example/flip/a.js. No longer ready offline: flip.")
        #expect(try await fixture.store.entry(for: key) == nil)
        let game = try #require(try await fixture.store.game(slug: "flip"))
        #expect(game.state == .partial)
        #expect(game.filesCached == 1)
        let files = try await fixture.store.gameFiles(slug: "flip")
        #expect(files.first?.state == .failed)
        #expect(files.first?.reason == Store.purgedReason)

        let page = await fixture.get(location)
        #expect(page.body.contains("<p class=\"flash\" role=\"status\">Purged http://games.example/flip/a.js."))
        #expect(await fixture.get("/dev/offline").body.contains("Not ready: Flip (1 of 2)."))

        let again = await fixture.post("/dev/offline/actions/purge-entry", form: [("key", key.rawValue)], headers: self.own)
        #expect(again.headers.first(name: "location")?.contains("was%20not%20cached") == true)
    }

    @Test("purge-entry names a keyed request's entry by its whole key, leaving the URL's own entry")
    func purgeKeyedEntry() async throws {
        let fixture = try DevOfflineFixture()
        let url = "http://api.example/graphql"
        let plain = try await fixture.storeEntry(url)
        let keyed = try await fixture.storeEntry(url, key: try CacheKey(url: url).keyed(method: "POST", bodyKey: .graphql, digest: "ab12"))
        let response = await fixture.post("/dev/offline/actions/purge-entry", form: [("key", keyed.rawValue)], headers: self.own)
        #expect(response.status == 303)
        #expect(try await fixture.store.variants(of: keyed).isEmpty)
        #expect(try await fixture.store.entry(for: plain) != nil)
    }

    @Test("purge-game, clear-runtime and the offline switch do what they say")
    func otherControls() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"])
        try await fixture.storeEntry("http://site.example/runtime-1.css")
        try await fixture.storeEntry("http://site.example/runtime-2.css")

        let purge = await fixture.post(
            "/dev/offline/actions/purge-game", form: [("game", "flip")], headers: ["Referer": "http://localhost:8080/dev/offline"])
        #expect(purge.status == 303)
        #expect(try await fixture.store.game(slug: "flip")?.state == .failed)
        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        #expect((report["games"] as? [[String: Any]])?.first?["ready"] as? Bool == false)

        let clear = await fixture.post("/dev/offline/actions/clear-runtime", form: [], headers: self.own)
        #expect(clear.status == 303)
        #expect(
            FormFields(String(clear.headers.first(name: "location")?.split(separator: "?")[1] ?? ""))["flash"]
                == "Removed 2 runtime entries; precached entries stay.")
        #expect(try await fixture.store.totals().entries == 0)

        let on = await fixture.post("/dev/offline/actions/offline", form: [("offline", "on")], headers: self.own)
        #expect(on.status == 303)
        #expect(fixture.offline.isOffline)
        #expect(await fixture.get("/dev/offline").body.contains("<span class=\"pill offline\">Offline mode</span>"))
        _ = await fixture.post("/dev/offline/actions/offline", form: [("offline", "off")], headers: self.own)
        #expect(fixture.offline.isOffline == false)
    }

    @Test("precache-game queues a job for the game's manifest and shows it on the game's page")
    func precacheGame() async throws {
        let fixture = try DevOfflineFixture()
        try await fixture.storeGame(slug: "flip", displayName: "Flip", cached: ["http://games.example/flip/a.js"])
        let response = await fixture.post("/dev/offline/actions/precache-game", form: [("game", "flip")], headers: self.own)
        #expect(response.status == 303)
        let location = try #require(response.headers.first(name: "location"))
        #expect(location.hasPrefix("/dev/offline/games/flip?job="))
        let job = try #require(FormFields(String(location.split(separator: "?")[1]))["job"])
        #expect(fixture.jobs.status(job)?.state == "queued")
        let page = await fixture.get(location)
        #expect(page.body.contains("Precache job <span class=\"mono\">\(job)</span>: queued."))
        #expect(page.body.contains("href=\"/dev/offline/precache/\(job)\""))
    }

    @Test("the return path is kept to /dev/offline pages: no other site, no scheme-relative URL")
    func returnPath() throws {
        #expect(DevOfflineActions.returnPath("/dev/offline/entries?q=x") == "/dev/offline/entries?q=x")
        #expect(DevOfflineActions.returnPath("/dev/offline") == "/dev/offline")
        for hostile in [
            "//evil.example/dev/offline", "https://evil.example/", "/dev/offlinex", "/dev/offline/..//evil",
            "/dev/offline/\r\nSet-Cookie: a", "/other", nil,
        ] {
            #expect(DevOfflineActions.returnPath(hostile) == "/dev/offline", "\(hostile ?? "nil")")
        }
        let redirect = DevOfflineActions.redirect("/dev/offline?flash=old&x=1&flash-signature=00", flash: "new <b>")
        let location = try #require(redirect.headers.first(name: "location"))
        #expect(location.hasPrefix("/dev/offline?x=1&flash=new%20%3Cb%3E&flash-signature="))
    }

    @Test("a flash in a link from elsewhere is not shown: only messages Larder's controls wrote, signed, are")
    func unsignedFlash() async throws {
        let fixture = try DevOfflineFixture()
        let forged = "Your account is locked"
        for target in [
            "/dev/offline?flash=Your+account+is+locked",
            "/dev/offline?flash=Your+account+is+locked&flash-signature=" + String(repeating: "0", count: 64),
            "/dev/offline/entries?flash=Your%20account%20is%20locked",
        ] {
            let page = await fixture.get(target)
            #expect(page.status == 200)
            #expect(!page.body.contains(forged), "\(target)")
            #expect(!page.body.contains("class=\"flash\""), "\(target)")
        }
        // A signature is for its own text only.
        let signed = try #require(
            DevOfflineActions.redirect("/dev/offline", flash: "Removed 3 runtime entries").headers.first(name: "location"))
        let signature = try #require(FormFields(String(signed.split(separator: "?")[1]))[FlashSignature.parameter])
        #expect(await fixture.get(signed).body.contains("Removed 3 runtime entries"))
        #expect(!(await fixture.get("/dev/offline?flash=Your+account+is+locked&flash-signature=\(signature)").body.contains(forged)))
    }

    @Test("a control that is not a form, or names nothing, gets a clear 4xx")
    func badForms() async throws {
        let fixture = try DevOfflineFixture()
        let json = await fixture.send(
            "POST", "/dev/offline/actions/clear-runtime",
            headers: ["Origin": DevOfflineFixture.ownOrigin, "Content-Type": "application/json"], body: "{}")
        #expect(json.status == 415)
        let nothing = await fixture.post("/dev/offline/actions/purge-entry", form: [], headers: self.own)
        #expect(nothing.status == 400)
        let unknown = await fixture.post("/dev/offline/actions/format-disk", form: [], headers: self.own)
        #expect(unknown.status == 404)
    }
}
