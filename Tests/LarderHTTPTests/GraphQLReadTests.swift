import Testing

@testable import LarderHTTP

/// Which GraphQL requests are keyed with no config (docs/SERVING.md, "Requests with bodies"):
/// the document is parsed; only a selected `query` is a read.
@Suite("GraphQL reads on defaults")
struct GraphQLReadTests {
    private static func read(_ body: String) -> GraphQLRead {
        GraphQLRead(body: Array(body.utf8))
    }

    private static let queryDigest = BodyKey.graphql.digest(of: Array(#"{"query":"query Today { today { id } }"}"#.utf8))

    @Test(
        "a body is a query, a write, unreadable, not JSON, or not GraphQL",
        arguments: [
            (#"{"query":"query Today { today { id } }"}"#, "query"),
            (#"{"query":"{ today { id } }","variables":{"day":"2026-01-01"}}"#, "query"),
            (#"{"query":"mutation Save { save(id: 1) { id } }"}"#, "mutation"),
            (#"{"query":"subscription Moves { moves { id } }"}"#, "subscription"),
            // Names do not matter: a query named like a write is a query, and the other way round.
            (#"{"query":"query saveGame { game { id } }"}"#, "query"),
            (#"{"query":"mutation getToday { today { id } }"}"#, "mutation"),
            // Several operations: operationName selects; without it, none is selected.
            (#"{"query":"query A { a } mutation B { b }","operationName":"A"}"#, "query"),
            (#"{"query":"query A { a } mutation B { b }","operationName":"B"}"#, "mutation"),
            (#"{"query":"query A { a } mutation B { b }"}"#, "unreadable"),
            (#"{"query":"query A { a } query B { b }","operationName":"C"}"#, "unreadable"),
            (#"{"query":"query A { a }","operationName":7}"#, "unreadable"),
            (#"{"query":"query A { a }","variables":[1]}"#, "unreadable"),
            (#"{"query":12}"#, "unreadable"),
            (#"{"query":"not graphql at all"}"#, "unreadable"),
            (#"{"query":"query A { a }""#, "invalid"),
            ("", "invalid"),
            (#"{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"ab"}}}"#, "none"),
            (#"{"name":"x"}"#, "none"),
            (#"[{"query":"{ a }"}]"#, "none"),
        ]
    )
    func classifies(body: String, expected: String) {
        let kind: String
        switch Self.read(body) {
        case .query: kind = "query"
        case .write(let operation): kind = operation
        case .unreadable: kind = "unreadable"
        case .invalidJSON: kind = "invalid"
        case .notGraphQL: kind = "none"
        }
        #expect(kind == expected)
    }

    @Test("a query's digest is its graphql body key; its GET form has the same")
    func digest() throws {
        #expect(Self.read(#"{"query":"query Today { today { id } }"}"#) == .query(digest: try #require(Self.queryDigest)))
        #expect(Self.read(#"{ "query" : "query   Today{today{id}}" }"#) == .query(digest: try #require(Self.queryDigest)))
        let url = try HTTPURL(parsing: "https://api.example/graphql?query=query%20Today%20%7B%20today%20%7B%20id%20%7D%20%7D")
        #expect(GraphQLRead(queryOf: url) == .query(digest: try #require(Self.queryDigest)))
        let persisted = try HTTPURL(parsing: "https://api.example/graphql?extensions=%7B%22a%22%3A1%7D")
        #expect(GraphQLRead(queryOf: persisted) == .notGraphQL)
        let mutation = try HTTPURL(parsing: "https://api.example/graphql?query=mutation%20%7B%20a%20%7D")
        #expect(GraphQLRead(queryOf: mutation) == .notGraphQL)
    }

    @Test("what a forwarded, unkeyed body's Cache-Status says")
    func details() {
        #expect(Self.read(#"{"query":"mutation { a }"}"#).notKeyedDetail == "graphql-mutation")
        #expect(Self.read(#"{"query":"subscription { a }"}"#).notKeyedDetail == "graphql-subscription")
        #expect(Self.read(#"{"query":3}"#).notKeyedDetail == "graphql-unreadable")
        #expect(Self.read("{").notKeyedDetail == "invalid-json")
        #expect(Self.read(#"{"a":1}"#).notKeyedDetail == nil)
        #expect(Self.read(#"{"query":"{ a }"}"#).notKeyedDetail == nil)
    }
}
