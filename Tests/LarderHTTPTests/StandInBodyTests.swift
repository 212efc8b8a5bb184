import LarderHTTP
import Testing

@Suite("StandInBody: which stored read's body may stand in for a request's while the origin cannot answer")
struct StandInBodyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var stored: String
        var requestType: String? = "application/json"
        var storedType: String? = "application/json"
        var expected: StandInBody.Verdict
        var testDescription: String { self.name }
    }

    private static func near(_ differing: [String], _ seconds: Double = 0) -> StandInBody.Verdict {
        .near(StandInBody.Nearness(differing: differing, seconds: seconds))
    }

    static func multipart(_ boundary: String, _ parts: [(String, String)]) -> String {
        parts.map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }.joined()
            + "--\(boundary)--\r\n"
    }

    static let rows: [Row] = [
        Row(
            name: "the same body is near, nothing differing", request: #"{"q": 1}"#, stored: #"{"q":1}"#, expected: near([])),
        Row(
            name: "epoch milliseconds a week apart, member order ignored",
            request: #"{"start_time_ms": 1795000000000, "end_time_ms": 1795604800000, "panel": "cpu"}"#,
            stored: #"{"panel": "cpu", "end_time_ms": 1795600000000, "start_time_ms": 1794995200000}"#,
            expected: near(["start_time_ms", "end_time_ms"], 9_600)),
        Row(
            name: "epoch seconds as strings, nested", request: #"{"range": {"from": "1795000000", "to": "1795000060"}}"#,
            stored: #"{"range": {"from": "1794990000", "to": "1794990060"}}"#, expected: near(["range.from", "range.to"], 20_000)),
        Row(
            name: "ISO dates and times in an array", request: #"{"days": ["2026-11-28", "2026-11-28T10:00:00Z"]}"#,
            stored: #"{"days": ["2026-11-27", "2026-11-27T10:00:00.000+00:00"]}"#, expected: near(["days[0]", "days[1]"], 172_800)),
        Row(
            name: "a counter named as one, whatever its value", request: #"{"seq": 42, "requestId": "a1b2", "q": "x"}"#,
            stored: #"{"seq": 7, "requestId": "ffee", "q": "x"}"#, expected: near(["seq", "requestId"])),
        Row(
            name: "GraphQL variables sent as a JSON string", request: #"{"query": "{ a }", "variables": "{\"since\": 1795000000}"}"#,
            stored: #"{"query": "{ a }", "variables": "{\"since\": 1794000000}"}"#, expected: near(["variables.since"], 1_000_000)),
        Row(
            name: "a meaningful value differs", request: #"{"panel": "cpu", "t": 1795000000000}"#,
            stored: #"{"panel": "mem", "t": 1795000000000}"#, expected: .refused(.differs(at: "panel"))),
        Row(
            name: "a small number is meaningful", request: #"{"page": 2}"#, stored: #"{"page": 3}"#,
            expected: .refused(.differs(at: "page"))),
        Row(
            name: "seconds never stand for milliseconds", request: #"{"at": 1795000000}"#, stored: #"{"at": 1795000000000}"#,
            expected: .refused(.differs(at: "at"))),
        Row(
            name: "another member", request: #"{"a": 1795000000}"#, stored: #"{"b": 1795000000}"#,
            expected: .refused(.differs(at: "(members)"))),
        Row(
            name: "another array length", request: #"{"ids": [1, 2]}"#, stored: #"{"ids": [1]}"#, expected: .refused(.differs(at: "ids"))),
        Row(
            name: "a number for a string", request: #"{"n": "1795000000"}"#, stored: #"{"n": 1795000000}"#,
            expected: .refused(.differs(at: "n"))),
        Row(
            name: "a request body that does not parse is never matched loosely", request: #"{"start": 1795000000"#,
            stored: #"{"start": 1795000000}"#, expected: .refused(.requestUnparsable)),
        Row(
            name: "a stored body that does not parse", request: #"{"a": 1}"#, stored: "a=1", storedType: "text/plain",
            expected: .refused(.storedUnparsable)),
        Row(
            name: "JSON sent as text/plain (fetch's default) is JSON", request: #"{"now": 1795000000123}"#,
            stored: #"{"now": 1795000000000}"#, requestType: "text/plain;charset=UTF-8", storedType: nil,
            expected: near(["now"], 0.123)),
        Row(
            name: "a form's fields by name, the clock differing", request: "panel=cpu&to=1795000000&_=0.12345678901",
            stored: "panel=cpu&to=1794000000&_=0.98765432109", requestType: "application/x-www-form-urlencoded",
            storedType: "application/x-www-form-urlencoded", expected: near(["to", "_"], 1_000_000)),
        Row(
            name: "a form's meaningful field differs", request: "panel=cpu&to=1795000000", stored: "panel=disk&to=1795000000",
            requestType: "application/x-www-form-urlencoded", storedType: "application/x-www-form-urlencoded",
            expected: .refused(.differs(at: "panel"))),
        Row(
            name: "a form for JSON", request: "a=1", stored: #"{"a": 1}"#, requestType: "application/x-www-form-urlencoded",
            expected: .refused(.differentForm)),
        Row(
            name: "multipart: only the boundary differs",
            request: multipart("----WebKitFormBoundaryAAAA", [("chart", "load"), ("range", "7d")]),
            stored: multipart("----WebKitFormBoundaryBBBB", [("chart", "load"), ("range", "7d")]),
            requestType: "multipart/form-data; boundary=----WebKitFormBoundaryAAAA",
            storedType: "multipart/form-data; boundary=\"----WebKitFormBoundaryBBBB\"", expected: near([])),
        Row(
            name: "multipart: a part holding the clock",
            request: multipart("x1", [("chart", "load"), ("until", "2026-11-28T10:00:00Z")]),
            stored: multipart("y2", [("chart", "load"), ("until", "2026-11-28T09:00:00Z")]),
            requestType: "multipart/form-data; boundary=x1", storedType: "multipart/form-data", expected: near(["until"], 3_600)),
        Row(
            name: "multipart: a part differs in meaning", request: multipart("x1", [("chart", "load")]),
            stored: multipart("y2", [("chart", "disk")]), requestType: "multipart/form-data; boundary=x1",
            storedType: "multipart/form-data; boundary=y2", expected: .refused(.differs(at: "chart"))),
        Row(
            name: "multipart: another part", request: multipart("x1", [("chart", "load")]), stored: multipart("y2", [("graph", "load")]),
            requestType: "multipart/form-data; boundary=x1", storedType: "multipart/form-data; boundary=y2",
            expected: .refused(.differs(at: "chart"))),
        Row(
            name: "multipart: a body cut short does not parse", request: "--x1\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb",
            stored: multipart("y2", [("a", "b")]), requestType: "multipart/form-data; boundary=x1",
            storedType: "multipart/form-data; boundary=y2", expected: .refused(.requestUnparsable)),
    ]

    @Test(arguments: Self.rows)
    func verdict(_ row: Row) {
        let verdict = StandInBody.compare(
            StandInBody.Body(Array(row.request.utf8), contentType: row.requestType),
            stored: StandInBody.Body(Array(row.stored.utf8), contentType: row.storedType))
        switch (verdict, row.expected) {
        case (.near(let got), .near(let expected)):
            #expect(got.differing == expected.differing)
            #expect(abs(got.seconds - expected.seconds) < 0.01, "seconds \(got.seconds), expected \(expected.seconds)")
        default:
            #expect(verdict == row.expected)
        }
    }

    @Test("the nearest: fewer differing fields first, then the closer clock")
    func ordering() {
        let one = StandInBody.Nearness(differing: ["a"], seconds: 500)
        let two = StandInBody.Nearness(differing: ["a", "b"], seconds: 1)
        let closer = StandInBody.Nearness(differing: ["a"], seconds: 5)
        #expect(one < two)
        #expect(closer < one)
    }

    @Test("a body past the size compared is never near")
    func tooLarge() {
        let big = #"{"a": ""# + String(repeating: "x", count: StandInBody.maximumBodySize) + #""}"#
        let verdict = StandInBody.compare(
            StandInBody.Body(Array(big.utf8), contentType: "application/json"),
            stored: StandInBody.Body(Array(big.utf8), contentType: "application/json"))
        #expect(verdict == .refused(.requestUnparsable))
    }
}

@Suite("ChangingValue: clocks and random numbers apps put in every request")
struct ChangingValueTests {
    @Test(arguments: [
        ("1795000000", ChangingValue.epochSeconds(1_795_000_000)),
        ("1795000000.5", .epochSeconds(1_795_000_000.5)),
        ("1795000000123", .epochMilliseconds(1_795_000_000_123)),
        ("2026-11-28", .isoDate(1_795_824_000)),
        ("2026-11-28T10:30:00Z", .isoDate(1_795_861_800)),
        ("2026-11-28T10:30:00.250+01:00", .isoDate(1_795_858_200.25)),
        ("2026-11-28 10:30", .isoDate(1_795_861_800)),
        ("0.8143276918473", .random),
    ])
    func recognised(_ text: String, _ expected: ChangingValue) {
        #expect(ChangingValue(Substring(text)) == expected)
    }

    @Test(arguments: ["42", "0900000000", "9999999999", "123456789012", "2026-13-01", "2026-11-28T25:00", "2026-11-28Tx", "cpu", "0.5", ""])
    func notRecognised(_ text: String) {
        #expect(ChangingValue(Substring(text)) == nil)
    }

    @Test("counter names, case, _ and - ignored")
    func counterNames() {
        for name in ["seq", "requestId", "request_id", "NONCE", "_", "cache-buster"] {
            #expect(ChangingValue.isCounterName(Substring(name)), "\(name)")
        }
        for name in ["page", "id", "panel", "count"] {
            #expect(!ChangingValue.isCounterName(Substring(name)), "\(name)")
        }
    }
}
