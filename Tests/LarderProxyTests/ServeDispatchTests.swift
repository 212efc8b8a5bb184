import LarderHTTP
import NIOCore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// ``ServeDispatch`` as a table: which serve method a forwarded request goes to, from its head and
/// then from its body, with no proxy.
@Suite("ServeDispatch")
struct ServeDispatchTests {
    /// Queues POSTs to /scores (and to /graphql whose body says `"kind": "save"`), keys POSTs to
    /// /search by their exact body, and leaves /live network-only (no GraphQL keying there).
    static var configuration: ProxyConfiguration {
        var configuration = ProxyConfiguration()
        configuration.writeQueue = WriteQueueConfiguration(rules: [
            WriteQueueRule(pattern: .glob(ExcludeGlob("https://api.example/scores"))),
            WriteQueueRule(
                pattern: .glob(ExcludeGlob("https://api.example/graphql")), methods: ["POST"],
                when: BodyCondition(field: "kind", equals: "save")),
        ])
        configuration.routes = [
            CacheRoute(pattern: .glob(ExcludeGlob("https://api.example/search")), strategy: nil, cacheMethods: ["POST"]),
            CacheRoute(pattern: .glob(ExcludeGlob("https://api.example/live/**")), strategy: .networkOnly),
        ]
        return configuration
    }

    /// What a dispatch is, in words a table can hold.
    static func describe(_ dispatch: ServeDispatch) -> String {
        switch dispatch {
        case .serve(let choice): Self.describe(choice)
        case .readBodyFirst(let mayQueue): mayQueue ? "read whole, may queue" : "read whole, may key"
        case .streamBody: "stream"
        }
    }

    static func describe(_ choice: ServeDispatch.Choice) -> String {
        switch choice {
        case .cacheable(let keyed?): "cacheable, keyed \(keyed.request.reason)"
        case .cacheable(nil): "cacheable"
        case .queueable: "queueable"
        case .uncacheable(let withheld?, _): "uncacheable, withheld \(withheld)"
        case .uncacheable(nil, let detail?): "uncacheable: \(detail)"
        case .uncacheable(nil, nil): "uncacheable"
        }
    }

    struct HeadCase: Sendable, CustomTestStringConvertible {
        var method: String
        var url: String
        var headers: [(String, String)] = []
        var hasBody = false
        var expected: String
        var testDescription: String { "\(self.method) \(self.url)\(self.hasBody ? " with a body" : "") → \(self.expected)" }
    }

    static let headCases: [HeadCase] = [
        HeadCase(method: "GET", url: "https://api.example/page", expected: "cacheable"),
        HeadCase(method: "HEAD", url: "https://api.example/page", expected: "cacheable"),
        HeadCase(method: "GET", url: "https://api.example/graphql?query=%7Bscore%7D", expected: "cacheable, keyed graphQLQuery"),
        HeadCase(
            method: "OPTIONS", url: "https://api.example/search",
            headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")], expected: "cacheable, keyed preflight"),
        HeadCase(method: "OPTIONS", url: "https://api.example/search", expected: "uncacheable"),
        HeadCase(method: "POST", url: "https://api.example/scores", expected: "queueable"),
        HeadCase(method: "DELETE", url: "https://api.example/other", expected: "uncacheable"),
        HeadCase(method: "POST", url: "https://api.example/scores", hasBody: true, expected: "read whole, may queue"),
        HeadCase(method: "POST", url: "https://api.example/search", hasBody: true, expected: "read whole, may key"),
        HeadCase(
            method: "POST", url: "https://api.example/graphql", headers: [("Content-Type", "application/json")], hasBody: true,
            expected: "read whole, may queue"),
        HeadCase(
            method: "POST", url: "https://api.example/query", headers: [("Content-Type", "application/json")], hasBody: true,
            expected: "read whole, may key"),
        HeadCase(
            method: "POST", url: "https://api.example/upload", headers: [("Content-Type", "image/png")], hasBody: true,
            expected: "stream"),
        HeadCase(
            method: "POST", url: "https://api.example/live/feed", headers: [("Content-Type", "application/json")], hasBody: true,
            expected: "stream"),
        HeadCase(method: "PUT", url: "https://api.example/search", hasBody: true, expected: "stream"),
        HeadCase(method: "GET", url: "https://api.example/page", hasBody: true, expected: "stream"),
    ]

    @Test("from the head", arguments: Self.headCases)
    func fromHead(_ example: HeadCase) throws {
        let dispatch = ServeDispatch.forHead(
            method: example.method, url: try HTTPURL(parsing: example.url), headers: HTTPHeaders(example.headers), hasBody: example.hasBody,
            client: .local, configuration: Self.configuration)
        #expect(Self.describe(dispatch) == example.expected)
    }

    struct BodyCase: Sendable, CustomTestStringConvertible {
        var url: String
        var contentType: String?
        var body: String
        var mayQueue: Bool
        var expected: String
        var testDescription: String { "POST \(self.url) \(self.body) → \(self.expected)" }
    }

    static let bodyCases: [BodyCase] = [
        BodyCase(url: "https://api.example/scores", body: "{}", mayQueue: true, expected: "queueable"),
        BodyCase(
            url: "https://api.example/graphql", contentType: "application/json", body: #"{"kind": "save"}"#, mayQueue: true,
            expected: "queueable"),
        BodyCase(
            url: "https://api.example/graphql", contentType: "application/json", body: #"{"query": "{ score }"}"#, mayQueue: true,
            expected: "cacheable, keyed graphQLQuery"),
        BodyCase(url: "https://api.example/search", body: "q=larder", mayQueue: false, expected: "cacheable, keyed route"),
        BodyCase(
            url: "https://api.example/query", contentType: "application/json", body: #"{"query": "mutation { save }"}"#, mayQueue: false,
            expected: "uncacheable: graphql-mutation"),
        BodyCase(url: "https://api.example/query", contentType: "text/plain", body: "hello", mayQueue: false, expected: "uncacheable"),
    ]

    @Test("from a body read whole", arguments: Self.bodyCases)
    func fromBody(_ example: BodyCase) throws {
        let choice = ServeDispatch.forBody(
            ByteBuffer(string: example.body), method: "POST", url: try HTTPURL(parsing: example.url),
            headers: HTTPHeaders(example.contentType.map { [("Content-Type", $0)] } ?? []), mayQueue: example.mayQueue, client: .local,
            learned: [:], configuration: Self.configuration)
        #expect(Self.describe(choice) == example.expected)
    }
}
