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

    @Test("on Larder's machine, cookies count by presence; on another, by value and by address")
    func owners() {
        let cookieA = Self.fields([("Cookie", "session=a")])
        let cookieB = Self.fields([("Cookie", "session=b")])
        let none = Self.fields([])
        #expect(AnswerOwner(client: .local, request: cookieA) == AnswerOwner(client: .local, request: cookieB))
        #expect(AnswerOwner(client: .local, request: cookieA) != AnswerOwner(client: .local, request: none))
        #expect(
            AnswerOwner(client: .local, request: Self.fields([("Authorization", "Bearer 1")]))
                != AnswerOwner(client: .local, request: Self.fields([("Authorization", "Bearer 2")])))
        let pupil = AnswerOwner.Client.remote(address: "192.168.1.20")
        #expect(AnswerOwner(client: pupil, request: cookieA) != AnswerOwner(client: pupil, request: cookieB))
        #expect(AnswerOwner(client: pupil, request: cookieA) != AnswerOwner(client: .remote(address: "192.168.1.21"), request: cookieA))
        #expect(AnswerOwner(client: pupil, request: none) != AnswerOwner(client: .local, request: none))
        // The digest carries no credential in clear.
        let owner = AnswerOwner(client: pupil, request: Self.fields([("Cookie", "session=SECRET-VALUE")]))
        #expect(!owner.recorded.value.contains("SECRET"))
        #expect(owner.recorded.value.count == 64)
    }

    @Test("a personal answer is recorded with its owner and selected by that owner alone")
    func selection() {
        let request = Self.fields([("Cookie", "session=a"), ("Accept-Language", "en")])
        let response = Self.fields([("Vary", "Accept-Language"), ("Cache-Control", "max-age=60")])
        let owner = AnswerOwner(client: .remote(address: "10.0.0.2"), request: request)
        let recorded = VaryKey.recordedValues(response: response, request: request, owner: owner)
        #expect(recorded == Self.fields([("accept-language", "en"), (AnswerOwner.recordedName, owner.digest)]))
        func selects(_ request: [HeaderField], _ owner: AnswerOwner, precached: Bool = false) -> Bool {
            VaryKey.selects(storedHeaders: response, varyRequestHeaders: recorded, precached: precached, for: request, owner: owner)
        }
        #expect(selects(request, owner))
        #expect(!selects(request, AnswerOwner(client: .remote(address: "10.0.0.3"), request: request)))
        #expect(selects(request, owner, precached: true))
        #expect(!selects(request, AnswerOwner(client: .local, request: request), precached: true))
        #expect(!selects(Self.fields([("Cookie", "session=a")]), owner))
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
