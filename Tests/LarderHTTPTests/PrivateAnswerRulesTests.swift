import Foundation
import Testing

@testable import LarderHTTP

/// Whose a stored answer is (``AnswerOwner``), and who a declared request's answer goes to
/// (``DeclaredAnswerAccess``).
@Suite("Private answer rules")
struct PrivateAnswerRulesTests {
    private static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    @Test(
        "an answer is personal when the request carried credentials or the origin said private",
        arguments: [
            ([("Accept", "*/*")], [("Cache-Control", "max-age=60")], false),
            ([("Cookie", "session=a")], [("Cache-Control", "max-age=60")], true),
            ([("Authorization", "Bearer t")], [], true),
            ([], [("Cache-Control", "private, max-age=60")], true),
            ([], [("Cache-Control", "PRIVATE=\"Set-Cookie\"")], true),
            ([], [("Cache-Control", "public, max-age=60")], false),
        ])
    func personal(request: [(String, String)], response: [(String, String)], expected: Bool) {
        #expect(AnswerOwner.isPersonal(request: Self.fields(request), response: Self.fields(response)) == expected)
    }

    private static let page = try! HTTPURL(parsing: "https://app.example/account")

    @Test("on Larder's machine every request is the one user's; on another, the address and exact credentials tell owners apart")
    func owners() {
        func owner(_ client: AnswerOwner.Client, _ pairs: [(String, String)]) -> AnswerOwner {
            AnswerOwner(client: client, request: Self.fields(pairs), url: Self.page)
        }
        #expect(owner(.local, [("Cookie", "session=a")]).digest == owner(.local, []).digest)
        #expect(owner(.local, [("Authorization", "Bearer 1")]).digest == owner(.local, [("Cookie", "b")]).digest)
        let pupil = AnswerOwner.Client.remote(address: "192.168.1.20")
        #expect(owner(pupil, [("Cookie", "session=a")]).digest != owner(pupil, [("Cookie", "session=b")]).digest)
        #expect(owner(pupil, [("Cookie", "session=a")]).digest == owner(pupil, [("Cookie", "session=a")]).digest)
        #expect(owner(pupil, [("Authorization", "Bearer 1")]).digest != owner(pupil, [("Authorization", "Bearer 2")]).digest)
        #expect(owner(pupil, [("Cookie", "a")]).digest != owner(.remote(address: "192.168.1.21"), [("Cookie", "a")]).digest)
        #expect(owner(pupil, []).digest != owner(.local, []).digest)
        // The digest carries no credential in clear.
        let recorded = owner(pupil, [("Cookie", "session=SECRET-VALUE")]).recorded.value
        #expect(!recorded.contains("SECRET"))
        #expect(recorded.count == 64)
    }

    @Test(
        "a read by a page of another site, as Sec-Fetch-Site says, else as Origin says",
        arguments: [
            ([], false),
            ([("Sec-Fetch-Site", "same-origin")], false),
            ([("Sec-Fetch-Site", "same-site"), ("Origin", "https://www.app.example")], false),
            ([("Sec-Fetch-Site", "none")], false),
            ([("Sec-Fetch-Site", "Cross-Site")], true),
            ([("Origin", "https://APP.example:443")], false),
            ([("Origin", "https://evil.example")], true),
            ([("Origin", "null")], true),
        ])
    func crossSite(request: [(String, String)], expected: Bool) {
        #expect(AnswerOwner.isCrossSite(Self.fields(request), url: Self.page) == expected)
    }

    @Test("a personal answer is recorded with its owner and selected by that owner alone, never for a page of another site")
    func selection() {
        let request = Self.fields([("Cookie", "session=a"), ("Accept-Language", "en")])
        let response = Self.fields([("Vary", "Accept-Language"), ("Cache-Control", "max-age=60")])
        let pupil = AnswerOwner.Client.remote(address: "10.0.0.2")
        let owner = AnswerOwner(client: pupil, request: request, url: Self.page)
        let recorded = VaryKey.recordedValues(response: response, request: request, owner: owner)
        #expect(recorded == Self.fields([("accept-language", "en"), (AnswerOwner.recordedName, owner.digest)]))
        func selects(_ request: [HeaderField], _ client: AnswerOwner.Client = pupil, precached: Bool = false) -> Bool {
            VaryKey.selects(
                storedHeaders: response, varyRequestHeaders: recorded, precached: precached, for: request,
                owner: AnswerOwner(client: client, request: request, url: Self.page))
        }
        #expect(selects(request))
        #expect(selects(request, precached: true))
        #expect(!selects(request, .remote(address: "10.0.0.3")))
        #expect(!selects(request, .remote(address: "10.0.0.3"), precached: true))
        #expect(!selects(Self.fields([("Cookie", "session=a")])), "its Vary still applies")
        #expect(!selects(request + Self.fields([("Sec-Fetch-Site", "cross-site")])))
        // A shared answer is recorded without an owner and selected for anyone.
        let shared = VaryKey.recordedValues(response: response, request: Self.fields([("Accept-Language", "en")]), owner: owner)
        #expect(AnswerOwner.recordedDigest(in: shared) == nil)
        // An origin cannot name the owner field in its Vary.
        #expect(VaryKey.names([":owner, Accept-Language"]) == ["accept-language"])
    }

    private static func declared(headers: [(String, String)], pageOrigins: [String] = []) throws -> DeclaredRequest {
        DeclaredRequest(
            name: "today", method: "POST", url: try TextTemplate(parsing: "https://api.example/graphql"),
            headers: try headers.map { DeclaredRequest.Header(name: $0.0, value: try TextTemplate(parsing: $0.1)) },
            body: .text(try TextTemplate(parsing: "{}")), bodyKey: .exact, timeZone: TimeZone(identifier: "UTC")!,
            pageOrigins: pageOrigins)
    }

    @Test("a declared answer fetched with the user's credentials answers only the same credentials or a listed page")
    func declaredAccess() throws {
        let withToken = try Self.declared(headers: [("Authorization", "Bearer {{env:TOKEN}}")], pageOrigins: ["https://www.example"])
        let resolved = Self.fields([("Authorization", "Bearer s3cret")])
        func decide(_ request: [(String, String)], client: AnswerOwner.Client = .local) -> DeclaredAnswerAccess? {
            DeclaredAnswerAccess.decide(declared: withToken, resolvedHeaders: resolved, request: Self.fields(request), client: client)
        }
        #expect(decide([]) == nil)
        #expect(decide([("Origin", "https://evil.example")]) == nil)
        #expect(decide([("Authorization", "Bearer wrong"), ("Origin", "https://evil.example")]) == nil)
        #expect(decide([("Authorization", "Bearer s3cret")]) == .sameCredentials(origin: nil))
        #expect(decide([("Origin", "https://WWW.example:443")]) == .listedPageOrigin("https://www.example"))
        #expect(decide([("Referer", "https://www.example/today")]) == .listedPageOrigin("https://www.example"))
        // A listed page on another machine still needs the credentials.
        #expect(decide([("Origin", "https://www.example")], client: .remote(address: "10.0.0.2")) == nil)
        // A custom header naming a variable is a credential too; a plain one is not.
        let withKey = try Self.declared(headers: [("X-Api-Key", "{{env:KEY}}")])
        #expect(
            DeclaredAnswerAccess.decide(declared: withKey, resolvedHeaders: Self.fields([("X-Api-Key", "k")]), request: [], client: .local)
                == nil)
        let plain = try Self.declared(headers: [("Accept", "application/json")])
        #expect(
            DeclaredAnswerAccess.decide(
                declared: plain, resolvedHeaders: Self.fields([("Accept", "application/json")]), request: [], client: .local)
                == .open)
    }

    @Test(
        "a declared answer's CORS grant is never a stored * and never to an origin not granted",
        arguments: [
            // (access, stored grant, stored credentials, expected grant, expected credentials)
            (DeclaredAnswerAccess.open, "*", nil, "*", nil),
            (.listedPageOrigin("https://www.example"), "*", nil, "https://www.example", "true"),
            (.sameCredentials(origin: "https://app.example"), "*", nil, "https://app.example", nil),
            (.sameCredentials(origin: "https://app.example"), "https://app.example", "true", "https://app.example", "true"),
            (.sameCredentials(origin: "https://app.example"), "https://other.example", "true", nil, nil),
            (.sameCredentials(origin: nil), "*", nil, nil, nil),
        ] as [(DeclaredAnswerAccess, String, String?, String?, String?)])
    func declaredGrant(access: DeclaredAnswerAccess, stored: String, storedCredentials: String?, grant: String?, credentials: String?) {
        var headers = Self.fields([("Content-Type", "application/json"), ("Access-Control-Allow-Origin", stored)])
        if let storedCredentials { headers.append(HeaderField(name: "Access-Control-Allow-Credentials", value: storedCredentials)) }
        let answered = access.headers(headers)
        #expect(answered["access-control-allow-origin"] == (grant.map { [$0] } ?? []))
        #expect(answered["access-control-allow-credentials"] == (credentials.map { [$0] } ?? []))
        if access != .open {
            #expect(answered["vary"] == ["Origin"])
        }
    }
}
