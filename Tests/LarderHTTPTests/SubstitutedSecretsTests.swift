import Foundation
import LarderHTTP
import Testing

/// What Larder shows of text that may carry a declared request's `{{env:NAME}}` value.
@Suite("Substituted secrets")
struct SubstitutedSecretsTests {
    static func request(url: String, header: String? = nil) throws -> DeclaredRequest {
        DeclaredRequest(
            name: "r", method: "GET", url: try TextTemplate(parsing: url),
            headers: try header.map { [DeclaredRequest.Header(name: "Authorization", value: try TextTemplate(parsing: $0))] } ?? [],
            bodyKey: .exact, timeZone: TimeZone(identifier: "UTC")!)
    }

    @Test("every value a request names, as it is or percent-encoded, is shown as its placeholder; others are not")
    func redacting() throws {
        let requests = [
            try Self.request(url: "https://a.example/feed?key={{env:KEY}}&day={{today}}", header: "Bearer {{env:TOKEN}}"),
            try Self.request(url: "https://a.example/{{env:EMPTY}}"),
        ]
        let secrets = SubstitutedSecrets(
            requests, environment: ["KEY": "k+y/1", "TOKEN": "tok-123", "EMPTY": "", "OTHER": "https"])
        #expect(!secrets.isEmpty)
        #expect(secrets.redacting("https://a.example/feed?key=k+y/1&v=1") == "https://a.example/feed?key={{env:KEY}}&v=1")
        #expect(secrets.redacting("https://a.example/feed?key=k%2By%2F1") == "https://a.example/feed?key={{env:KEY}}")
        #expect(secrets.redacting("error [Bearer tok-123] tok%2D123") == "error [Bearer {{env:TOKEN}}] {{env:TOKEN}}")
        #expect(secrets.redacting("nothing here") == "nothing here")
        #expect(secrets.restoring("https://a.example/feed?key={{env:KEY}}") == "https://a.example/feed?key=k+y/1")
        #expect(secrets.restoring("{{env:OTHER}}") == "{{env:OTHER}}")
    }

    @Test("none changes nothing")
    func none() {
        #expect(SubstitutedSecrets.none.isEmpty)
        #expect(SubstitutedSecrets.none.redacting("https://a.example/?key=x") == "https://a.example/?key=x")
    }
}
