import Testing

@testable import LarderHTTP

/// Which grant Larder gives on an answer in the origin's place (``CORSInOriginsPlace``): never wider
/// than the origin gave that page for that resource (issue 41, findings 1 and 4).
@Suite("CORS in the origin's place: grants per resource")
struct CORSInOriginsPlaceTests {
    static let page = "https://www.example"
    static let exact = CORSGrant(allowOrigin: page, allowsCredentials: false, exposedHeaders: [])
    static let exactWithCredentials = CORSGrant(allowOrigin: page, allowsCredentials: true, exposedHeaders: ["x-id"])
    static let star = CORSGrant(allowOrigin: "*", allowsCredentials: false, exposedHeaders: [])
    static let other = CORSGrant(allowOrigin: "https://other.example", allowsCredentials: true, exposedHeaders: [])

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var evidence: CORSInOriginsPlace.Evidence
        /// The `Access-Control-Allow-Origin` expected, nil for no grant.
        var allowOrigin: String?
        var credentials = false
        var testDescription: String { self.name }
    }

    @Test(
        "the grant an answer in the origin's place carries",
        arguments: [
            // Finding 1: the page was granted `*` on /pub/feed.json only; the stored
            // /internal/payroll.json has no grant of its own and nothing was learned for it.
            Row(name: "finding 1: a grant learned on another URL opens nothing", evidence: .init(), allowOrigin: nil),
            // Its variant: the user's cookie page (private, no ACAO) read by a page on another port.
            Row(name: "finding 1 variant: a personal answer with no grant of its own", evidence: .init(personal: true), allowOrigin: nil),
            Row(
                name: "`*` is never given on a personal answer", evidence: .init(learned: star, stored: star, personal: true),
                allowOrigin: nil),
            Row(
                name: "an exact grant without credentials does not open a personal answer",
                evidence: .init(learned: exact, personal: true), allowOrigin: nil),
            Row(
                name: "a personal answer the origin granted this page with credentials",
                evidence: .init(stored: exactWithCredentials, personal: true), allowOrigin: page, credentials: true),
            Row(name: "the stored copy's own `*`", evidence: .init(stored: star), allowOrigin: "*"),
            Row(name: "the stored copy's grant of another page", evidence: .init(stored: other), allowOrigin: nil),
            Row(name: "learned for this URL and method", evidence: .init(learned: exact, stored: other), allowOrigin: page),
            Row(
                name: "learned for this URL first, the stored copy's next",
                evidence: .init(learned: exactWithCredentials, stored: star), allowOrigin: page, credentials: true),
            Row(name: "a page the route lists in pageOrigins", evidence: .init(listed: true), allowOrigin: page, credentials: true),
            Row(
                name: "a listed page, the answer personal", evidence: .init(personal: true, listed: true), allowOrigin: page,
                credentials: true),
        ])
    func grant(_ row: Row) {
        let grant = CORSInOriginsPlace.grant(page: Self.page, row.evidence)
        #expect(grant?.allowOrigin == row.allowOrigin)
        #expect((grant?.allowsCredentials ?? false) == row.credentials)
    }

    static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    static func preflight(_ method: String, headers: String? = nil) -> CORSPreflight {
        var request = [("Origin", page), ("Access-Control-Request-Method", method)]
        if let headers { request.append(("Access-Control-Request-Headers", headers)) }
        return CORSPreflight(method: "OPTIONS", request: fields(request))!
    }

    @Test(
        "whether the origin's answer allows a preflight (a refused one is forgotten, so it stays refused offline)",
        arguments: [
            // Finding 4: the origin answered the preflight for DELETE with x-evil 403.
            ("DELETE", "x-evil", 403, [("Access-Control-Allow-Origin", "*")], false),
            ("DELETE", "x-evil", 204, [("Access-Control-Allow-Origin", page), ("Access-Control-Allow-Methods", "PATCH")], false),
            (
                "DELETE", "x-evil", 204,
                [
                    ("Access-Control-Allow-Origin", page), ("Access-Control-Allow-Methods", "DELETE"),
                    ("Access-Control-Allow-Headers", "content-type"),
                ],
                false
            ),
            (
                "DELETE", "x-evil", 204,
                [
                    ("Access-Control-Allow-Origin", page), ("Access-Control-Allow-Methods", "GET, DELETE"),
                    ("Access-Control-Allow-Headers", "X-Evil"),
                ],
                true
            ),
            (
                "PATCH", nil, 204, [("Access-Control-Allow-Origin", "https://other.example"), ("Access-Control-Allow-Methods", "PATCH")],
                false
            ),
            ("PATCH", nil, 200, [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "*")], true),
            ("POST", "content-type", 204, [("Access-Control-Allow-Origin", page), ("Access-Control-Allow-Headers", "*")], true),
            ("POST", nil, 204, [], false),
        ] as [(String, String?, Int, [(String, String)], Bool)])
    func preflightAllowed(method: String, headers: String?, status: Int, response: [(String, String)], allowed: Bool) {
        #expect(Self.preflight(method, headers: headers).isAllowed(status: status, response: Self.fields(response)) == allowed)
    }

    @Test("a preflight never answered by the origin is answered offline only for a listed page (finding 4)")
    func preflightOffline() {
        let preflight = Self.preflight("DELETE", headers: "x-evil")
        #expect(CORSInOriginsPlace.preflightAnswer(preflight, listed: false) == nil)
        let answer = CORSInOriginsPlace.preflightAnswer(preflight, listed: true)
        #expect(answer?["access-control-allow-origin"] == [Self.page])
        #expect(answer?["access-control-allow-credentials"] == ["true"])
        #expect(answer?["access-control-allow-methods"] == ["DELETE"])
        #expect(answer?["access-control-allow-headers"] == ["x-evil"])
    }
}
