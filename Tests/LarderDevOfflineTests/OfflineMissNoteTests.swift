import Foundation
import LarderHTTP
import LarderIntrospection
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

/// What each row of the offline misses says happened, in a user's words (docs/SERVING.md, "Offline misses").
@Suite("Offline misses: the note of a row")
struct OfflineMissNoteTests {
    static let now = Date(timeIntervalSince1970: 1_795_492_696)

    /// The one miss `record` makes, annotated with `fixes`.
    private static func note(
        method: String = "GET", url: String = "https://app.example/api/feed", referer: String? = "https://app.example/",
        reason: OfflineMisses.Reason = .upstreamUnreachable, upgrade: String? = nil, causes: [String] = [],
        methodNotStored: Bool = false, declared: String? = nil, fixes: OfflineMissNote.Fixes = .init()
    ) throws -> (note: String, fix: OfflineMissFix?) {
        let misses = OfflineMisses()
        misses.record(
            url: try HTTPURL(parsing: url), method: method, referer: referer, reason: reason, upgrade: upgrade, causes: causes,
            methodNotStored: methodNotStored, declaredRequest: declared, now: Self.now - 60)
        let miss = OfflineMissNote.annotated(try #require(misses.snapshot().first), fixes: fixes, now: Self.now)
        return (miss.note ?? "", miss.fix)
    }

    @Test(
        "why the site could not answer, never an internal word",
        arguments: [
            (OfflineMisses.Reason.offline, "Offline mode is on: Larder does not use the network."),
            (.upstreamUnreachable, "The site could not be reached."),
            (.upstreamBackoff, "Larder stopped trying the site for a while after it failed several times."),
            (.networkTimeout, "The site did not answer in time."),
        ]
    )
    func reasons(reason: OfflineMisses.Reason, sentence: String) throws {
        let note = try Self.note(reason: reason).note
        #expect(note.hasPrefix(sentence))
        #expect(!note.contains(reason.rawValue) || reason == .offline, "the note says \(reason.rawValue) in words")
    }

    @Test("what the Cache-Status detail's + parts say: a live connection, a health check, a withheld declared answer, a body not near")
    func causes() throws {
        let websocket = try Self.note(upgrade: "websocket", causes: ["websocket"]).note
        #expect(websocket.contains("live connection (a WebSocket)"))
        #expect(websocket.contains("cannot work offline"))

        let health = try Self.note(url: "https://app.example/healthz", causes: ["health-check"]).note
        #expect(health.contains("This is a health check"))

        let withheld = try Self.note(
            method: "POST", url: "https://api.example/graphql", referer: "https://www.app.example/today", causes: ["declared-withheld"],
            methodNotStored: true, declared: "today-page"
        ).note
        #expect(withheld.contains(#"The declared request "today-page" has a stored answer for this request"#))
        #expect(withheld.contains(#"add "https://www.app.example" to that request's pageOrigins in the config file"#))
        #expect(!withheld.contains("not stored on defaults"), "the fix is the config's pageOrigins, not Answer offline")

        let notNear = try Self.note(method: "POST", causes: ["body-not-near"]).note
        #expect(
            notNear.contains(
                "Larder keeps answers for this URL, but none for a request like this one: its body differs in more than times, counters or a form boundary."
            ))

        let post = try Self.note(method: "POST", methodNotStored: true).note
        #expect(post.contains("POST requests are not stored on defaults"))
    }

    @Test("a fix applied: when, whether it missed since, and the old advice gone")
    func fixes() throws {
        var fixes = OfflineMissNote.Fixes()
        fixes.answeredOffline["POST https://app.example/_dash-update-component"] = .some(Self.now - 3600)
        let worked = try Self.note(
            method: "POST", url: "https://app.example/_dash-update-component?x=1", methodNotStored: true, fixes: fixes)
        #expect(worked.fix == OfflineMissFix(kind: .answerOffline, at: Self.now - 3600, missedSince: true))
        #expect(worked.note.contains("Answer offline was chosen 1 h ago"))
        #expect(worked.note.contains("but it has missed since"))
        #expect(!worked.note.contains("not stored on defaults"))

        fixes.answeredOffline["POST https://app.example/_dash-update-component"] = .some(Self.now - 10)
        let since = try Self.note(method: "POST", url: "https://app.example/_dash-update-component", methodNotStored: true, fixes: fixes)
        #expect(since.fix?.missedSince == false)
        #expect(since.note.contains("it has not missed since"))

        fixes.addedToPrecache["https://app.example/api/feed"] = Self.now - 600
        let precached = try Self.note(url: "https://app.example/api/feed?_=1795492696035", fixes: fixes)
        #expect(precached.fix == OfflineMissFix(kind: .addToPrecache, at: Self.now - 600, missedSince: true))
        #expect(precached.note.contains("It was added to precache 10 min ago"))
        #expect(precached.note.contains("but it has missed since"))
    }
}

@Suite("Offline misses: a page its site marks no-store")
struct OfflineMissNoStoreNoteTests {
    static let now = OfflineMissNoteTests.now

    private static func annotated(_ keptNoStore: KeptNoStoreReport, method: String = "GET", missedAt: Date) throws -> OfflineMisses.Miss {
        let misses = OfflineMisses()
        misses.record(
            url: try HTTPURL(parsing: "https://admin.example/users"), method: method, referer: nil, reason: .upstreamUnreachable,
            now: missedAt)
        let fixes = OfflineMissNote.Fixes(answeredOffline: nil, extraURLs: [], keptNoStore: keptNoStore)
        return OfflineMissNote.annotated(try #require(misses.snapshot().first), fixes: fixes, now: Self.now)
    }

    @Test(
        "not chosen: the note says the site asked that its pages never be kept and how to keep them; chosen: when, and whether it missed since"
    )
    func noStoreSite() throws {
        let seen = KeptNoStoreReport(
            file: "keep-no-store.json", kept: [],
            candidates: [.init(origin: "https://admin.example", count: 3, latestURL: "https://admin.example/users", lastSeen: Self.now)])
        let before = try Self.annotated(seen, missedAt: Self.now - 60)
        #expect(before.note?.contains("This site marks its pages no-store") == true, "\(before.note ?? "")")
        #expect(before.note?.contains("Keep this site's pages for offline use") == true)
        #expect(before.causes == [OfflineMissNote.notStoredNoStore])
        #expect(before.fix == nil)
        let post = try Self.annotated(seen, method: "POST", missedAt: Self.now - 60)
        #expect(post.note?.contains("no-store") == false, "a POST is no page: \(post.note ?? "")")

        let chosenAt = Self.now - 120
        let chosen = KeptNoStoreReport(
            file: "keep-no-store.json", kept: ["https://admin.example"], chosenAt: ["https://admin.example": chosenAt], candidates: [])
        let since = try Self.annotated(chosen, missedAt: Self.now - 60)
        #expect(since.fix == OfflineMissFix(kind: .keepNoStore, at: chosenAt, missedSince: true))
        #expect(since.note?.contains("Keep this site's pages for offline use was chosen") == true, "\(since.note ?? "")")
        #expect(since.note?.contains("but it has missed since") == true)
        #expect(since.note?.contains("marks its pages no-store") == false, "the old note goes once the fix is applied")
        let earlier = try Self.annotated(chosen, missedAt: Self.now - 600)
        #expect(earlier.fix?.missedSince == false)
        #expect(earlier.note?.contains("it has not missed since") == true, "\(earlier.note ?? "")")
    }
}
