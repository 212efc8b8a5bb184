import LarderHTTP
import Testing

/// Body keys: which bodies ask the same question (docs/SERVING.md, "Requests with bodies").
@Suite("Body keys")
struct BodyKeyTests {
    private func digest(_ kind: BodyKey, _ body: String) -> String? {
        kind.digest(of: Array(body.utf8))
    }

    struct Pair: Sendable, CustomTestStringConvertible {
        var kind: BodyKey
        var first: String
        var second: String
        var equal: Bool
        var testDescription: String { "\(self.kind): \(self.first) \(self.equal ? "==" : "!=") \(self.second)" }
    }

    static let pairs: [Pair] = [
        // exact: the bytes.
        Pair(kind: .exact, first: #"{"a":1}"#, second: #"{"a":1}"#, equal: true),
        Pair(kind: .exact, first: #"{"a":1}"#, second: #"{"a": 1}"#, equal: false),
        // json: member order and whitespace do not matter; values, string contents and numbers as written do.
        Pair(kind: .json, first: #"{"a":1,"b":[true,null]}"#, second: " {\n \"b\" : [ true , null ] ,\t\"a\":1 } ", equal: true),
        Pair(kind: .json, first: #"{"s":"\u00e9\/"}"#, second: #"{"s":"é/"}"#, equal: true),
        Pair(kind: .json, first: #"{"a":1,"a":2}"#, second: #"{"a":2}"#, equal: true),
        Pair(kind: .json, first: #"{"n":1E3}"#, second: #"{"n":1e3}"#, equal: true),
        Pair(kind: .json, first: #"{"a":1}"#, second: #"{"a":2}"#, equal: false),
        Pair(kind: .json, first: #"{"a":1}"#, second: #"{"a":1.0}"#, equal: false),
        Pair(kind: .json, first: #"{"a":"x y"}"#, second: #"{"a":"x  y"}"#, equal: false),
        Pair(kind: .json, first: #"[1,2]"#, second: #"[2,1]"#, equal: false),
        // graphql: operationName, the query document normalised, variables canonical.
        Pair(
            kind: .graphql,
            first:
                #"{"query":"query Today($d: String!) { today(date: $d) { id, title } }","variables":{"d":"2026-11-24","n":1},"operationName":"Today"}"#,
            second: """
                {"operationName": "Today", "variables": {"n": 1, "d": "2026-11-24"},
                 "query": "# the today page\\nquery Today( $d : String! ) {\\n  today(date:$d) {\\n    id\\n    title # shown\\n  }\\n}\\n"}
                """,
            equal: true
        ),
        Pair(kind: .graphql, first: #"{"query":"{ a }"}"#, second: #"{"query":"{a}","variables":{},"operationName":null}"#, equal: true),
        Pair(kind: .graphql, first: #"{"query":"{ a { ...F } }"}"#, second: #"{"query":"{a{... F}}"}"#, equal: true),
        Pair(
            kind: .graphql, first: #"{"query":"{ a }","variables":{"d":"1"}}"#, second: #"{"query":"{ a }","variables":{"d":"2"}}"#,
            equal: false),
        Pair(kind: .graphql, first: #"{"query":"{ a(s: \"x  y\") }"}"#, second: #"{"query":"{ a(s: \"x y\") }"}"#, equal: false),
        Pair(kind: .graphql, first: ##"{"query":"{ a(s: \"# no\") }"}"##, second: #"{"query":"{ a(s: \"\") }"}"#, equal: false),
        Pair(kind: .graphql, first: #"{"query":"{ a b }"}"#, second: #"{"query":"{ ab }"}"#, equal: false),
        Pair(
            kind: .graphql, first: #"{"query":"query A { a } query B { b }","operationName":"A"}"#,
            second: #"{"query":"query A { a } query B { b }","operationName":"B"}"#, equal: false),
    ]

    @Test(arguments: Self.pairs)
    func sameQuestion(_ pair: Pair) {
        let first = self.digest(pair.kind, pair.first)
        let second = self.digest(pair.kind, pair.second)
        #expect(first != nil)
        #expect(second != nil)
        #expect((first == second) == pair.equal)
    }

    @Test("a digest is lower-case hex SHA-256")
    func digestForm() {
        #expect(self.digest(.exact, "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("bodies that do not fit the kind are not keyed; any bytes fit exact")
    func notKeyed() {
        for body in ["", "not json", #"{"a":"#, "{\"a\":1} x"] {
            #expect(self.digest(.json, body) == nil, "\(body)")
            #expect(self.digest(.graphql, body) == nil, "\(body)")
            #expect(self.digest(.exact, body) != nil, "\(body)")
        }
        let graphql = [
            #"{"query":"mutation { like(id: 1) }"}"#,
            ##"{"query":"# a comment\nmutation Like { like(id: 1) }"}"##,
            #"{"query":"subscription { news }"}"#,
            #"{"query":"query A { a } mutation B { b }","operationName":"B"}"#,
            #"{"query":"query A { a } query B { b }"}"#,
            #"{"query":"query A { a }","operationName":"C"}"#,
            #"{"query":1}"#,
            #"{"query":"{ a }","variables":[1]}"#,
            #"{"query":"{ a }","operationName":2}"#,
            #"{"variables":{}}"#,
            #"[{"query":"{ a }"}]"#,
        ]
        for body in graphql {
            #expect(self.digest(.graphql, body) == nil, "\(body)")
        }
        #expect(self.digest(.graphql, #"{"query":"query A { a } mutation B { b }","operationName":"A"}"#) != nil)
        #expect(self.digest(.graphql, #"{"query":"query Q @live { a(x: \"mutation {\") }"}"#) != nil)
        #expect(self.digest(.graphql, #"{"query":"fragment F on T { a } query { ...F }"}"#) != nil)
    }

    @Test("a persisted query keys by its extensions")
    func persistedQuery() throws {
        let body = #"{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"abc"}},"operationName":"Today"}"#
        #expect(self.digest(.graphql, body) != nil)
        let url = try HTTPURL(
            parsing:
                "https://api.example/graphql?operationName=Today&extensions=%7B%22persistedQuery%22%3A%7B%22sha256Hash%22%3A%22abc%22%2C%22version%22%3A1%7D%7D"
        )
        #expect(BodyKey.graphQLDigest(queryOf: url) == self.digest(.graphql, body))
    }

    @Test("a GET ?query= form has the digest of the equivalent POST body; mutations and URLs without a query have none")
    func getForm() throws {
        let post =
            #"{"query":"query Today($d: String!) { today(date: $d) { id } }","variables":{"d":"2026-11-24"},"operationName":"Today"}"#
        let get = try HTTPURL(
            parsing:
                "https://api.example/graphql?operationName=Today&query=query+Today(%24d%3A+String!)+%7B%0A++today(date%3A+%24d)+%7B+id+%7D%0A%7D"
                + "&variables=%7B%22d%22%3A%20%222026-11-24%22%7D&lang=en"
        )
        #expect(BodyKey.graphQLDigest(queryOf: get) == self.digest(.graphql, post))
        #expect(BodyKey.graphQLDigest(queryOf: try HTTPURL(parsing: "https://api.example/graphql?query=mutation%20%7Ba%7D")) == nil)
        #expect(BodyKey.graphQLDigest(queryOf: try HTTPURL(parsing: "https://api.example/graphql?lang=en")) == nil)
        #expect(BodyKey.graphQLDigest(queryOf: try HTTPURL(parsing: "https://api.example/graphql?query=%7Ba%7D&variables=nope")) == nil)
        #expect(
            BodyKey.graphQLDigest(queryOf: try HTTPURL(parsing: "https://api.example/graphql?query=%7Ba%7D&variables=&operationName="))
                == self.digest(.graphql, #"{"query":"{a}"}"#), "empty parameters say nothing")
        #expect(get.hasGraphQLQuery)
        #expect(!(try HTTPURL(parsing: "https://api.example/graphql?lang=en")).hasGraphQLQuery)
        #expect(CacheKey(url: get.withoutGraphQLParameters).rawValue == "https://api.example/graphql?lang=en")
    }

    @Test("a keyed key is the URL key, the method, the body key and the digest after a #; variants of it are keyed too")
    func keyedKey() throws {
        let key = try CacheKey(url: "https://API.example:443/graphql#top").keyed(method: "POST", bodyKey: .graphql, digest: "3f2a")
        #expect(key.rawValue == "https://api.example/graphql#POST=graphql:3f2a")
        #expect(key.isKeyed)
        #expect(key.variant("00ff").isKeyed)
        #expect(!(try CacheKey(url: "https://api.example/graphql")).isKeyed)
        #expect(!(try CacheKey(url: "https://api.example/graphql")).variant("00ff").isKeyed)
    }

    @Test("a read's keyed range holds every digest of its method and body key, and nothing of another's")
    func keyedRange() throws {
        let url = try CacheKey(url: "https://api.example/q")
        let range = url.keyedRange(method: "POST", bodyKey: .exact)
        #expect(range.contains(url.keyed(method: "POST", bodyKey: .exact, digest: "00").rawValue))
        #expect(range.contains(url.keyed(method: "POST", bodyKey: .exact, digest: "ff").variant("01").rawValue))
        #expect(!range.contains(url.keyed(method: "POST", bodyKey: .json, digest: "00").rawValue))
        #expect(!range.contains(url.keyed(method: "QUERY", bodyKey: .exact, digest: "00").rawValue))
        #expect(!range.contains(try CacheKey(url: "https://api.example/q2").keyed(method: "POST", bodyKey: .exact, digest: "00").rawValue))
        #expect(!range.contains(url.rawValue))
    }

    @Test("canonical JSON: sorted members, no whitespace, minimal escapes")
    func canonicalJSON() throws {
        let value = try JSONParser.parse(Array(#"{ "b": "a\"\\\n\u0001é", "a": [1, -0.5e+2, false, null], "B": {} }"#.utf8))
        #expect(
            String(decoding: CanonicalJSON.bytes(of: value), as: UTF8.self) == #"{"B":{},"a":[1,-0.5e+2,false,null],"b":"a\"\\\n\u0001é"}"#)
    }
}
