import Foundation
import Testing

@testable import LarderHTTP

/// The app's own version of a declared GraphQL request (``LearnedQuery``).
@Suite("Learned queries")
struct LearnedQueryTests {
    private static let utc = TimeZone(identifier: "UTC")!
    /// 2026-03-01 02:30 UTC.
    private static let now = Date(timeIntervalSince1970: 1_772_332_200)

    private static func declared(_ body: String) throws -> DeclaredRequest {
        DeclaredRequest(
            name: "today", method: "POST", url: try TextTemplate(parsing: "https://api.example/graphql"),
            body: .json(try JSONParser.parse(Array(body.utf8))), bodyKey: .graphql, timeZone: Self.utc)
    }

    private static let declaredToday =
        #"{"operationName":"Today","query":"query Today($day: String!) { today(day: $day) { id } }","variables":{"day":"{{today}}"}}"#

    @Test(
        "the app's query of the same operation becomes a template: its dates relative to the day it was sent; sent again the next day, it asks for that day"
    )
    func learned() throws {
        let declared = try Self.declared(Self.declaredToday)
        #expect(declared.operationName == "Today")
        let app =
            #"{"operationName":"Today","query":"query Today($day: String!, $from: String) { today(day: $day) { id hint } }","variables":{"day":"2026-03-01","from":"2026-02-27","label":"2026-06-01"}}"#
        let template = try #require(LearnedQuery.template(of: Array(app.utf8), for: declared, now: Self.now))
        #expect(template[member: "variables"]?[member: "day"]?.kind == .string("{{today}}"))
        #expect(template[member: "variables"]?[member: "from"]?.kind == .string("{{today-2}}"))
        #expect(template[member: "variables"]?[member: "label"]?.kind == .string("2026-06-01"), "too far to be relative")
        let nextDay = try declared.resolve(.init(now: Self.now + 86_400, timeZone: Self.utc), learnedBody: template) { _ in [] }
        let sent = String(decoding: try #require(nextDay.body), as: UTF8.self)
        #expect(sent.contains(#""day":"2026-03-02""#), "\(sent)")
        #expect(sent.contains(#""from":"2026-02-28""#))
        #expect(sent.contains("hint"))
        // On the day it was learned, it is the app's own request: the same key.
        let today = try declared.resolve(.init(now: Self.now, timeZone: Self.utc), learnedBody: template) { _ in [] }
        let appKey = try CacheKey(url: "https://api.example/graphql").keyed(
            method: "POST", bodyKey: .graphql, digest: try #require(BodyKey.graphql.digest(of: Array(app.utf8))))
        #expect(today.key == appKey)
    }

    @Test(
        "another operation, a mutation, a body that is not GraphQL, or text that reads as a placeholder is not learned",
        arguments: [
            #"{"operationName":"Yesterday","query":"query Yesterday { today { id } }"}"#,
            #"{"operationName":"Today","query":"mutation Today { save { id } }"}"#,
            #"{"operationName":"Today"}"#,
            #"not json"#,
            #"{"operationName":"Today","query":"query Today { today { id } }","variables":{"x":"{{env:HOME}}"}}"#,
        ])
    func notLearned(body: String) throws {
        #expect(LearnedQuery.template(of: Array(body.utf8), for: try Self.declared(Self.declaredToday), now: Self.now) == nil)
    }

    @Test("a declared request without an operation name, or not keyed as GraphQL, follows nothing")
    func noTemplate() throws {
        let unnamed = try Self.declared(#"{"query":"query { today { id } }"}"#)
        #expect(unnamed.operationName == nil)
        #expect(LearnedQuery.template(of: Array(#"{"query":"query { today { id hint } }"}"#.utf8), for: unnamed, now: Self.now) == nil)
    }
}
