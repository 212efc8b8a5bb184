import Testing

@testable import LarderHTTP

/// `VaryKey.selectsEveryRequest`, what the immediate hit path keeps a prepared answer by: true
/// only when `VaryKey.selects` is true for every request and owner tried, and, but for `Vary: *`
/// (never stored: `Storability`'s `vary-star`), whenever it is.
struct VaryKeyEveryRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var vary: [String]
        var recorded: [HeaderField]
        var precached = false
        var everyRequest: Bool
        /// Whether every request tried selects it.
        var selectedByAll: Bool? = nil

        var testDescription: String { self.name }
    }

    static let url = try! HTTPURL(parsing: "https://site.example/page")
    static let alice = AnswerOwner(client: .local, request: [HeaderField(name: "Cookie", value: "session=alice")], url: url)

    static let cases: [Case] = [
        Case(name: "no Vary", vary: [], recorded: [], everyRequest: true),
        Case(name: "Vary: Accept-Encoding alone", vary: ["Accept-Encoding"], recorded: [], everyRequest: true),
        Case(
            name: "Vary: Accept-Encoding with a value recorded before it was left out", vary: ["Accept-Encoding"],
            recorded: [HeaderField(name: "accept-encoding", value: "br")], everyRequest: true),
        Case(
            name: "Vary: Accept-Language", vary: ["Accept-Language"], recorded: [HeaderField(name: "accept-language", value: "fr")],
            everyRequest: false),
        Case(name: "Vary: *", vary: ["*"], recorded: [], everyRequest: false, selectedByAll: true),
        Case(
            name: "no Vary, with a value recorded for a header", vary: [], recorded: [HeaderField(name: "accept-language", value: "fr")],
            everyRequest: false),
        Case(name: "personal", vary: [], recorded: [alice.recorded], everyRequest: false),
        Case(
            name: "precached, varying", vary: ["Origin"], recorded: [HeaderField(name: "origin", value: "https://a.example")],
            precached: true, everyRequest: true),
        Case(name: "precached, personal", vary: [], recorded: [alice.recorded], precached: true, everyRequest: false),
    ]

    /// Requests that differ in every way a stored response is selected by: varied fields, owner,
    /// and a page of another site.
    static let requests: [[HeaderField]] = [
        [],
        [HeaderField(name: "Accept-Language", value: "fr")],
        [HeaderField(name: "Accept-Language", value: "de"), HeaderField(name: "Accept-Encoding", value: "gzip")],
        [HeaderField(name: "Origin", value: "https://b.example")],
        [HeaderField(name: "Cookie", value: "session=alice")],
        [HeaderField(name: "Cookie", value: "session=alice"), HeaderField(name: "Sec-Fetch-Site", value: "cross-site")],
        [HeaderField(name: "Cookie", value: "session=bob")],
    ]

    @Test(arguments: Self.cases)
    func isSelectsForEveryRequest(_ testCase: Case) {
        let stored = testCase.vary.map { HeaderField(name: "Vary", value: $0) }
        let every = VaryKey.selectsEveryRequest(storedHeaders: stored, varyRequestHeaders: testCase.recorded, precached: testCase.precached)
        #expect(every == testCase.everyRequest)
        let selectedByAll = Self.requests.allSatisfy { request in
            VaryKey.selects(
                storedHeaders: stored, varyRequestHeaders: testCase.recorded, precached: testCase.precached, for: request,
                owner: AnswerOwner(client: .local, request: request, url: Self.url))
        }
        #expect(selectedByAll == testCase.selectedByAll ?? every)
    }
}
