import LarderHTTP
import Testing

/// How a relayed answer goes to the client: status, framing, ranges and decoding, decided from
/// its head alone.
@Suite("Relay plan")
struct RelayPlanTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status = 200
        var upstream: [HeaderField]
        var request: [HeaderField] = []
        var isHead = false
        var isGet = true
        var keepAlive = true
        var http11 = true
        var expected: RelayPlan
        var testDescription: String { self.name }
    }

    static func fields(_ pairs: KeyValuePairs<String, String>) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.key, value: $0.value) }
    }

    static let cases: [Case] = [
        Case(
            name: "a GET with a length: the whole body, its length moved after the other fields",
            upstream: fields(["Content-Length": "10", "Content-Type": "text/plain"]),
            expected: RelayPlan(
                status: 200, headers: fields(["Content-Type": "text/plain", "content-length": "10"]), body: .whole, close: false)),
        Case(
            name: "a HEAD: the length, no body", upstream: fields(["Content-Length": "10"]), isHead: true, isGet: false,
            expected: RelayPlan(status: 200, headers: fields(["content-length": "10"]), body: .none, close: false)),
        Case(
            name: "a Range of a GET is cut from the full body as a 206",
            upstream: fields(["Content-Length": "10", "ETag": "\"v1\""]), request: fields(["Range": "bytes=2-5"]),
            expected: RelayPlan(
                status: 206, headers: fields(["ETag": "\"v1\"", "content-range": "bytes 2-5/10", "content-length": "4"]),
                body: .range(2..<6),
                close: false)),
        Case(
            name: "a Range no byte satisfies is a 416 with nothing of the response",
            upstream: fields(["Content-Length": "10", "Content-Type": "text/plain"]), request: fields(["Range": "bytes=20-"]),
            expected: RelayPlan(
                status: 416, headers: fields(["content-range": "bytes */10", "content-length": "0"]), body: .unsatisfiable, close: false)),
        Case(
            name: "an origin's own 416 is relayed as it came, body and all",
            status: 416, upstream: fields(["Content-Length": "12", "Content-Range": "bytes */10"]), request: fields(["Range": "bytes=20-"]),
            expected: RelayPlan(
                status: 416, headers: fields(["Content-Range": "bytes */10", "content-length": "12"]), body: .whole, close: false)),
        Case(
            name: "an If-Range naming another version gets the whole body",
            upstream: fields(["Content-Length": "10", "ETag": "\"v2\""]), request: fields(["Range": "bytes=2-5", "If-Range": "\"v1\""]),
            expected: RelayPlan(status: 200, headers: fields(["ETag": "\"v2\"", "content-length": "10"]), body: .whole, close: false)),
        Case(
            name: "a Range on a method other than GET is not cut",
            upstream: fields(["Content-Length": "10"]), request: fields(["Range": "bytes=2-5"]), isGet: false,
            expected: RelayPlan(status: 200, headers: fields(["content-length": "10"]), body: .whole, close: false)),
        Case(
            name: "gzip to a client that refuses it: decoded, in chunks, a weak validator",
            upstream: fields(["Content-Length": "10", "Content-Encoding": "gzip", "ETag": "\"v1\""]),
            request: fields(["Accept-Encoding": "identity", "Range": "bytes=0-1"]),
            expected: RelayPlan(
                status: 200, headers: fields(["etag": "W/\"v1\"", "vary": "Accept-Encoding", "transfer-encoding": "chunked"]),
                body: .decoded(.gzip), close: false)),
        Case(
            name: "decoded for an HTTP/1.0 client: delimited by the connection's end",
            upstream: fields(["Content-Length": "10", "Content-Encoding": "gzip", "Vary": "Accept-Encoding"]),
            request: fields(["Accept-Encoding": "identity"]), http11: false,
            expected: RelayPlan(status: 200, headers: fields(["Vary": "Accept-Encoding"]), body: .decoded(.gzip), close: true)),
        Case(
            name: "no length to an HTTP/1.1 client: chunks", upstream: fields(["Content-Type": "text/plain"]),
            expected: RelayPlan(
                status: 200, headers: fields(["Content-Type": "text/plain", "transfer-encoding": "chunked"]), body: .whole, close: false)),
        Case(
            name: "a 304 has no body and no framing", status: 304, upstream: fields(["ETag": "\"v1\""]),
            expected: RelayPlan(status: 304, headers: fields(["ETag": "\"v1\""]), body: .none, close: false)),
        Case(
            name: "a client closing its connection", upstream: fields(["Content-Length": "3"]), keepAlive: false,
            expected: RelayPlan(status: 200, headers: fields(["content-length": "3"]), body: .whole, close: true)),
    ]

    @Test("the plan from the head", arguments: cases)
    func plan(_ example: Case) {
        let request = StoredAnswer.Request(
            isHead: example.isHead, headers: example.request, keepAlive: example.keepAlive, supportsChunked: example.http11)
        let plan = RelayPlan(status: example.status, headers: example.upstream, request: request, isGet: example.isGet)
        #expect(plan == example.expected)
    }
}
