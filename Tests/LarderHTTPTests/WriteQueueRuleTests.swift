import LarderHTTP
import Testing

/// Which writes a queue route takes, and what identifies "the same thing" among them
/// (docs/SERVING.md, "Queued writes").
@Suite("Write queue rules")
struct WriteQueueRuleTests {
    private static func regex(_ source: String) throws -> CacheRoute.Pattern {
        .regex(source: source, expression: try RouteRegex(source))
    }

    private static let updateGameplay = #"{"operationName":"updateGameplay","variables":{"gameplayID":"g-1","n":7}}"#
    private static let completeGameplay = #"{"operationName":"completeGameplay","variables":{"gameplayID":42}}"#

    struct MatchCase: Sendable, CustomTestStringConvertible {
        var pattern: String
        var isRegex = false
        var methods: Set<String> = WriteQueueRule.defaultMethods
        var when: BodyCondition?
        var method: String
        var url: String
        var body: String?
        var matches: Bool
        var testDescription: String { "\(self.method) \(self.url) \(self.matches ? "matches" : "does not match") \(self.pattern)" }
    }

    static let matchCases: [MatchCase] = [
        MatchCase(
            pattern: "https://api.example/gameplay/*/update", method: "POST", url: "https://api.example/gameplay/a1/update", matches: true),
        MatchCase(
            pattern: "https://api.example/gameplay/*/update", method: "PATCH", url: "https://api.example/gameplay/a1/update", matches: true),
        // The default methods are the writes; a GET is never queued.
        MatchCase(
            pattern: "https://api.example/gameplay/*/update", method: "GET", url: "https://api.example/gameplay/a1/update", matches: false),
        // `*` stops at `/`, as in routes.
        MatchCase(
            pattern: "https://api.example/gameplay/*/update", method: "POST", url: "https://api.example/gameplay/a/b/update", matches: false
        ),
        MatchCase(pattern: "https://api.example/**", method: "DELETE", url: "https://api.example/gameplay/a/b", matches: true),
        MatchCase(pattern: "https://api.example/**", method: "DELETE", url: "https://other.example/gameplay", matches: false),
        MatchCase(pattern: "https://api.example/**", methods: ["PUT"], method: "POST", url: "https://api.example/x", matches: false),
        MatchCase(pattern: "https://api.example/**", methods: ["PUT"], method: "PUT", url: "https://api.example/x", matches: true),
        // Regexes match anywhere in the cache key (lower-cased host, default port dropped).
        MatchCase(
            pattern: #"^https://api\.example/graphql$"#, isRegex: true, method: "POST", url: "https://API.example:443/graphql",
            matches: true),
        MatchCase(
            pattern: #"^https://api\.example/graphql$"#, isRegex: true, method: "POST", url: "https://api.example/graphql2", matches: false),
        // The body condition, over a dotted path into JSON.
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "operationName", equals: "updateGameplay"), method: "POST",
            url: "https://api.example/graphql", body: Self.updateGameplay, matches: true),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "operationName", equals: "updateGameplay"), method: "POST",
            url: "https://api.example/graphql", body: Self.completeGameplay, matches: false),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "variables.n", equals: "7"), method: "POST",
            url: "https://api.example/graphql", body: Self.updateGameplay, matches: true),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "variables.gameplayID", equals: "42"), method: "POST",
            url: "https://api.example/graphql", body: Self.completeGameplay, matches: true),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "variables.missing", equals: "42"), method: "POST",
            url: "https://api.example/graphql", body: Self.completeGameplay, matches: false),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "operationName", equals: "updateGameplay"), method: "POST",
            url: "https://api.example/graphql", body: "operationName=updateGameplay", matches: false),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "operationName", equals: "updateGameplay"), method: "POST",
            url: "https://api.example/graphql", body: nil, matches: false),
        MatchCase(
            pattern: "https://api.example/graphql", when: BodyCondition(field: "items.1.kind", equals: "b"), method: "POST",
            url: "https://api.example/graphql", body: #"{"items":[{"kind":"a"},{"kind":"b"}]}"#, matches: true),
    ]

    @Test("rule matching: glob and regex, methods, the body condition", arguments: Self.matchCases)
    func matching(_ example: MatchCase) throws {
        let pattern: CacheRoute.Pattern = example.isRegex ? try Self.regex(example.pattern) : .glob(ExcludeGlob(example.pattern))
        let rule = WriteQueueRule(pattern: pattern, methods: example.methods, when: example.when)
        let key = try CacheKey(url: example.url)
        #expect(rule.matches(method: example.method, key: key, body: example.body.map { Array($0.utf8) }) == example.matches)
    }

    struct SupersedeCase: Sendable, CustomTestStringConvertible {
        var name: String
        var rule: WriteQueueRule
        var url: String
        var headers: [HeaderField] = []
        var body: String?
        var value: String?
        var testDescription: String { self.name }
    }

    private static let json = [HeaderField(name: "Content-Type", value: "application/json")]

    static var supersedeCases: [SupersedeCase] {
        get throws {
            let gameplay = try Self.regex(#"^https://api\.example/gameplay/([^/]+)/(update|complete)$"#)
            let graphql = try Self.regex(#"^https://api\.example/graphql$"#)
            return [
                SupersedeCase(
                    name: "a capture group, keyed by the origin", rule: WriteQueueRule(pattern: gameplay, supersedeKey: .capture(1)),
                    url: "https://api.example/gameplay/a1/update", value: "https://api.example\u{0}a1"),
                SupersedeCase(
                    name: "the second group", rule: WriteQueueRule(pattern: gameplay, supersedeKey: .capture(2)),
                    url: "https://api.example/gameplay/a1/complete", value: "https://api.example\u{0}complete"),
                SupersedeCase(
                    name: "a group past the expression's: none", rule: WriteQueueRule(pattern: gameplay, supersedeKey: .capture(3)),
                    url: "https://api.example/gameplay/a1/update", value: nil),
                SupersedeCase(
                    name: "a JSON string, keyed by the group",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql", headers: Self.json, body: Self.updateGameplay, value: "gameplay\u{0}g-1"),
                SupersedeCase(
                    name: "a JSON number reads as its plain text",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql", headers: Self.json, body: #"{"variables":{"gameplayID":42.0}}"#,
                    value: "gameplay\u{0}42"),
                SupersedeCase(
                    name: "a JSON string of the same digits is the same thing",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql", headers: Self.json, body: #"{"variables":{"gameplayID":"42"}}"#,
                    value: "gameplay\u{0}42"),
                SupersedeCase(
                    name: "a JSON object names no single thing",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables")),
                    url: "https://api.example/graphql", headers: Self.json, body: Self.updateGameplay, value: nil),
                SupersedeCase(
                    name: "a missing field: none", rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.id")),
                    url: "https://api.example/graphql", headers: Self.json, body: Self.updateGameplay, value: nil),
                SupersedeCase(
                    name: "a body that is not JSON: none", rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("id")),
                    url: "https://api.example/graphql", headers: Self.json, body: "id=3", value: nil),
                SupersedeCase(
                    name: "JSON sent as text/plain (a cross-site form's type) is not read: none",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql", headers: [HeaderField(name: "Content-Type", value: "text/plain;charset=UTF-8")],
                    body: Self.updateGameplay, value: nil),
                SupersedeCase(
                    name: "JSON without a Content-Type is not read: none",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql", body: Self.updateGameplay, value: nil),
                SupersedeCase(
                    name: "a +json type, any case, with parameters, is read",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay"),
                    url: "https://api.example/graphql",
                    headers: [HeaderField(name: "content-type", value: " Application/Vnd.Game+JSON ; charset=utf-8")],
                    body: Self.updateGameplay, value: "gameplay\u{0}g-1"),
                SupersedeCase(
                    name: "text/plain is read when the route says supersedeAnyContentType",
                    rule: WriteQueueRule(
                        pattern: graphql, supersedeKey: .jsonField("variables.gameplayID"), group: "gameplay", supersedeAnyContentType: true
                    ),
                    url: "https://api.example/graphql", headers: [HeaderField(name: "Content-Type", value: "text/plain")],
                    body: Self.updateGameplay, value: "gameplay\u{0}g-1"),
                SupersedeCase(
                    name: "a header key needs no JSON type",
                    rule: WriteQueueRule(pattern: graphql, supersedeKey: .header("X-Game")),
                    url: "https://api.example/graphql",
                    headers: [HeaderField(name: "Content-Type", value: "text/plain"), HeaderField(name: "X-Game", value: "a1")],
                    value: "https://api.example\u{0}a1"),
                SupersedeCase(
                    name: "a header, any case, trimmed", rule: WriteQueueRule(pattern: graphql, supersedeKey: .header("X-Game")),
                    url: "https://api.example:8443/graphql", headers: [HeaderField(name: "x-game", value: " a1 ")],
                    value: "https://api.example:8443\u{0}a1"),
                SupersedeCase(
                    name: "a missing header: none", rule: WriteQueueRule(pattern: graphql, supersedeKey: .header("X-Game")),
                    url: "https://api.example/graphql", value: nil),
                SupersedeCase(
                    name: "no supersede key: none", rule: WriteQueueRule(pattern: graphql), url: "https://api.example/graphql",
                    body: Self.updateGameplay, value: nil),
            ]
        }
    }

    @Test("supersede values: capture, JSON field, header; the group or the origin", arguments: try Self.supersedeCases)
    func supersedeValues(_ example: SupersedeCase) throws {
        let url = try HTTPURL(parsing: example.url)
        let value = example.rule.supersedeValue(url: url, headers: example.headers, body: example.body.map { Array($0.utf8) })
        #expect(value == example.value)
    }

    /// Two writes with the same supersede value, each from a client with the given credentials.
    struct OwnerCase: Sendable, CustomTestStringConvertible {
        var name: String
        var first: (client: AnswerOwner.Client, cookie: String?, authorization: String?)
        var second: (client: AnswerOwner.Client, cookie: String?, authorization: String?)
        /// Whether the second replaces the first: they have one stored supersede key.
        var sameKey: Bool
        var testDescription: String { self.name }
    }

    static let ownerCases: [OwnerCase] = [
        OwnerCase(
            name: "Larder's own machine is one user, whatever the cookies", first: (.local, "pupil=a", nil),
            second: (.local, "pupil=b", "Bearer x"), sameKey: true),
        OwnerCase(name: "Larder's own machine, no credentials", first: (.local, nil, nil), second: (.local, "pupil=a", nil), sameKey: true),
        OwnerCase(
            name: "one LAN client with the same cookie", first: (.remote(address: "10.0.0.2"), "pupil=a", nil),
            second: (.remote(address: "10.0.0.2"), "pupil=a", nil), sameKey: true),
        OwnerCase(
            name: "one LAN client, another login (cookie)", first: (.remote(address: "10.0.0.2"), "pupil=a", nil),
            second: (.remote(address: "10.0.0.2"), "pupil=b", nil), sameKey: false),
        OwnerCase(
            name: "one LAN client, another token", first: (.remote(address: "10.0.0.2"), nil, "Bearer a"),
            second: (.remote(address: "10.0.0.2"), nil, "Bearer b"), sameKey: false),
        OwnerCase(
            name: "two LAN clients with the same cookie", first: (.remote(address: "10.0.0.2"), "pupil=a", nil),
            second: (.remote(address: "10.0.0.3"), "pupil=a", nil), sameKey: false),
        OwnerCase(
            name: "a LAN client and Larder's own machine", first: (.remote(address: "10.0.0.2"), nil, nil), second: (.local, nil, nil),
            sameKey: false),
    ]

    @Test("a write's stored supersede key is its value and its owner: a write replaces only its owner's", arguments: Self.ownerCases)
    func supersedeKeysPerOwner(_ example: OwnerCase) throws {
        let rule = WriteQueueRule(pattern: .glob(ExcludeGlob("https://api.example/**")), supersedeKey: .jsonField("id"))
        let url = try HTTPURL(parsing: "https://api.example/save")
        func key(_ sender: (client: AnswerOwner.Client, cookie: String?, authorization: String?), text: String) -> String? {
            var headers = Self.json
            if let cookie = sender.cookie { headers.append(HeaderField(name: "Cookie", value: cookie)) }
            if let authorization = sender.authorization { headers.append(HeaderField(name: "Authorization", value: authorization)) }
            let owner = AnswerOwner(client: sender.client, request: headers, url: url)
            return rule.storedSupersedeKey(url: url, headers: headers, body: Array(#"{"id":"essay","text":"\#(text)"}"#.utf8), owner: owner)
        }
        let first = try #require(key(example.first, text: "A-FINAL"))
        let second = try #require(key(example.second, text: "B"))
        #expect((first == second) == example.sameKey)
        #expect(first.hasPrefix("https://api.example\u{0}essay\u{0}"))
    }

    @Test("a queued write is managed by Larder's own machine, or by its owner on another machine")
    func whoManagesAQueuedWrite() throws {
        let url = try HTTPURL(parsing: "https://api.example/save")
        let alice = [HeaderField(name: "Cookie", value: "pupil=a")]
        let aliceOwner = AnswerOwner(client: .remote(address: "10.0.0.2"), request: alice, url: url).digest
        #expect(AnswerOwner.mayManageQueuedWrite(ownedBy: aliceOwner, client: .remote(address: "10.0.0.2"), request: alice))
        #expect(AnswerOwner.mayManageQueuedWrite(ownedBy: aliceOwner, client: .local, request: [HeaderField]()))
        #expect(!AnswerOwner.mayManageQueuedWrite(ownedBy: aliceOwner, client: .remote(address: "10.0.0.2"), request: [HeaderField]()))
        #expect(!AnswerOwner.mayManageQueuedWrite(ownedBy: aliceOwner, client: .remote(address: "10.0.0.3"), request: alice))
        // A write queued before owners were recorded: the box's own user only.
        #expect(AnswerOwner.mayManageQueuedWrite(ownedBy: nil, client: .local, request: [HeaderField]()))
        #expect(!AnswerOwner.mayManageQueuedWrite(ownedBy: nil, client: .remote(address: "10.0.0.2"), request: [HeaderField]()))
    }

    @Test("a regex's capture groups are counted, matched or not; a glob has none")
    func captureCounts() throws {
        #expect(try Self.regex(#"^https://a/([^/]+)/(x|y)?(?:z)$"#).captureCount == 2)
        #expect(try Self.regex(#"^https://a/(?<game>[^/]+)$"#).captureCount == 1)
        #expect(try Self.regex(#"^https://a/$"#).captureCount == 0)
        #expect(CacheRoute.Pattern.glob(ExcludeGlob("https://a/*")).captureCount == 0)
    }

    @Test("the first rule that matches applies")
    func firstRuleApplies() throws {
        let configuration = WriteQueueConfiguration(rules: [
            WriteQueueRule(
                pattern: .glob(ExcludeGlob("https://api.example/graphql")),
                when: BodyCondition(field: "operationName", equals: "completeGameplay"), terminal: true),
            WriteQueueRule(pattern: .glob(ExcludeGlob("https://api.example/**"))),
        ])
        let key = try CacheKey(url: "https://api.example/graphql")
        #expect(configuration.rule(method: "POST", key: key, body: Array(Self.completeGameplay.utf8))?.terminal == true)
        #expect(configuration.rule(method: "POST", key: key, body: Array(Self.updateGameplay.utf8))?.terminal == false)
        #expect(configuration.rule(method: "GET", key: key, body: nil) == nil)
    }

    @Test("the default answer is 202 with the id in JSON; a 204 has no body")
    func answers() {
        #expect(QueuedAnswer.accepted.status == 202)
        #expect(String(decoding: QueuedAnswer.accepted.bodyBytes(id: 17), as: UTF8.self) == #"{"queued":true,"id":"17"}"#)
        #expect(QueuedAnswer(status: 204, body: nil, contentType: "application/json").bodyBytes(id: 1).isEmpty)
        #expect(QueuedAnswer(status: 200, body: "ok", contentType: "text/plain").bodyBytes(id: 1) == Array("ok".utf8))
    }
}
