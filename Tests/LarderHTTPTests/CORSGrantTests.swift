import Testing

@testable import LarderHTTP

/// What an origin grants a page origin, and the preflights Larder keeps and answers.
@Suite("CORS grants and preflights")
struct CORSGrantTests {
    private static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    @Test(
        "what an answer grants a page origin: its exact origin or *, credentials only with the exact one, never another origin's",
        arguments: [
            ([("Access-Control-Allow-Origin", "https://www.example")], "https://www.example", false, true),
            (
                [("Access-Control-Allow-Origin", "https://WWW.example:443"), ("Access-Control-Allow-Credentials", "true")],
                "https://www.example", true, true
            ),
            ([("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Credentials", "true")], "*", false, true),
            ([("Access-Control-Allow-Origin", "https://other.example")], "", false, false),
            ([("Access-Control-Allow-Origin", "https://www.example"), ("Access-Control-Allow-Origin", "*")], "", false, false),
            ([("Access-Control-Allow-Origin", "null")], "", false, false),
            ([], "", false, false),
        ] as [([(String, String)], String, Bool, Bool)])
    func grant(response: [(String, String)], allowOrigin: String, credentials: Bool, grants: Bool) {
        let grant = CORSGrant(response: Self.fields(response), pageOrigin: "https://www.example")
        #expect((grant != nil) == grants)
        if let grant {
            #expect(grant.allowOrigin == allowOrigin)
            #expect(grant.allowsCredentials == credentials)
        }
    }

    @Test("an answer in the origin's place carries the page's grant and nothing a stored copy had for another page")
    func answering() throws {
        let stored = Self.fields([
            ("Content-Type", "application/json"), ("Access-Control-Allow-Origin", "https://other.example"),
            ("Access-Control-Allow-Credentials", "true"), ("Access-Control-Expose-Headers", "X-Other"),
        ])
        let grant = try #require(
            CORSGrant(
                response: Self.fields([
                    ("Access-Control-Allow-Origin", "https://www.example"), ("Access-Control-Allow-Credentials", "true"),
                    ("Access-Control-Expose-Headers", "X-Request-Id"),
                ]), pageOrigin: "https://www.example"))
        let answered = CORSGrant.answering(stored, with: grant)
        #expect(answered["access-control-allow-origin"] == ["https://www.example"])
        #expect(answered["access-control-allow-credentials"] == ["true"])
        #expect(answered["access-control-expose-headers"] == ["x-request-id, cache-status, larder-offline, larder-queued"])
        #expect(answered["vary"] == ["Origin"])
        #expect(answered["content-type"] == ["application/json"])
        let none = CORSGrant.answering(stored, with: nil)
        #expect(none["access-control-allow-origin"].isEmpty)
        #expect(none["access-control-allow-credentials"].isEmpty)
        // `*` never goes with credentials, whatever the stored grant said.
        let star = CORSGrant(allowOrigin: "*", allowsCredentials: true, exposedHeaders: [])
        #expect(CORSGrant.answering([], with: star)["access-control-allow-credentials"].isEmpty)
    }

    @Test("a preflight is an OPTIONS with an Origin and a requested method; its key names the page, method and fields")
    func preflight() throws {
        let request = Self.fields([
            ("Origin", "https://www.example"), ("Access-Control-Request-Method", "PATCH"),
            ("Access-Control-Request-Headers", "Content-Type, x-app,content-type"),
        ])
        let preflight = try #require(CORSPreflight(method: "OPTIONS", request: request))
        #expect(preflight.pageOrigin == "https://www.example")
        #expect(preflight.method == "PATCH")
        #expect(preflight.headers == ["content-type", "x-app"])
        #expect(CORSPreflight(method: "GET", request: request) == nil)
        #expect(CORSPreflight(method: "OPTIONS", request: Self.fields([("Origin", "https://www.example")])) == nil)
        #expect(
            CORSPreflight(method: "OPTIONS", request: Self.fields([("Origin", "null"), ("Access-Control-Request-Method", "PATCH")])) == nil)
        let reordered = try #require(
            CORSPreflight(
                method: "OPTIONS",
                request: Self.fields([
                    ("Origin", "https://WWW.example"), ("Access-Control-Request-Method", "PATCH"),
                    ("Access-Control-Request-Headers", "x-app, content-type"),
                ])))
        #expect(reordered.digest == preflight.digest)
        let otherPage = try #require(
            CORSPreflight(
                method: "OPTIONS",
                request: Self.fields([
                    ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "PATCH"),
                    ("Access-Control-Request-Headers", "x-app, content-type"),
                ])))
        #expect(otherPage.digest != preflight.digest)

        let answer = preflight.answer(from: CORSGrant(allowOrigin: "https://www.example", allowsCredentials: true, exposedHeaders: []))
        #expect(answer["access-control-allow-origin"] == ["https://www.example"])
        #expect(answer["access-control-allow-credentials"] == ["true"])
        #expect(answer["access-control-allow-methods"] == ["PATCH"])
        #expect(answer["access-control-allow-headers"] == ["content-type, x-app"])
    }
}
