import Testing

@testable import LarderHTTP

/// A value starting on line 1, as every value of a one-line document does.
private func onLine1(_ kind: JSONValue.Kind) -> JSONValue {
    JSONValue(kind, line: 1)
}

/// A number value on line 1.
private func number(_ text: String) -> JSONValue {
    onLine1(.number(JSONNumber(text: text)))
}

struct JSONParserTests {
    @Test(arguments: [
        ("null", onLine1(.null)),
        ("true", onLine1(.bool(true))),
        (" false ", onLine1(.bool(false))),
        ("-0.5e+3", number("-0.5e+3")),
        ("0", number("0")),
        ("1E9", number("1E9")),
        (#""a\"b\\c\/d\n\t""#, onLine1(.string("a\"b\\c/d\n\t"))),
        (#""\u00e9\u4e2d""#, onLine1(.string("é中"))),
        (#""\ud83c\udfae""#, onLine1(.string("🎮"))),
        (#""\ud83c""#, onLine1(.string("\u{FFFD}"))),
        (#""\udfae x""#, onLine1(.string("\u{FFFD} x"))),
        (#""\ud83cA""#, onLine1(.string("\u{FFFD}A"))),
        ("\u{FEFF}[]", onLine1(.array([]))),
        ("[1, \"a\", [], {}]", onLine1(.array([number("1"), onLine1(.string("a")), onLine1(.array([])), onLine1(.object([]))]))),
        (
            #"{"a": 1, "b": [true], "a": "x"}"#,
            onLine1(
                .object([
                    JSONMember(name: "a", line: 1, value: number("1")),
                    JSONMember(name: "b", line: 1, value: onLine1(.array([onLine1(.bool(true))]))),
                    JSONMember(name: "a", line: 1, value: onLine1(.string("x"))),
                ])
            )
        ),
    ])
    func parsesValidDocuments(_ json: String, _ expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(json.utf8)) == expected)
    }

    @Test func repeatedMemberNamesResolveToTheLast() throws {
        let value = try JSONParser.parse(Array(#"{"skip": false, "skip": true}"#.utf8))
        #expect(value[member: "skip"]?.kind == .bool(true))
        #expect(value[member: "missing"] == nil)
    }

    @Test func valuesAndMembersKeepTheLineTheyStartOn() throws {
        let json = "\r\n{\n  \"a\": [\n    1,\n\n    \"x\\ny\"\n  ],\n  \"b\":\n    {}\n}\n"
        let document = try JSONParser.parse(Array(json.utf8))
        #expect(document.line == 2)
        guard case .object(let members) = document.kind, case .array(let elements)? = document[member: "a"]?.kind else {
            Issue.record("not an object with an array a: \(document)")
            return
        }
        #expect(members.map(\.line) == [3, 8])
        #expect(elements.map(\.line) == [4, 6])
        #expect(document[member: "a"]?.line == 3)
        #expect(document[member: "b"]?.line == 9)
    }

    @Test func numbersKeepTheirTextAndValue() throws {
        let document = try JSONParser.parse(Array("[3600, -0.5e+3, 3.6e3, 1.5, 1e400, 9007199254740993]".utf8))
        guard case .array(let elements) = document.kind else {
            Issue.record("not an array: \(document)")
            return
        }
        let numbers = elements.compactMap { element -> JSONNumber? in
            guard case .number(let number) = element.kind else { return nil }
            return number
        }
        #expect(numbers.map(\.text) == ["3600", "-0.5e+3", "3.6e3", "1.5", "1e400", "9007199254740993"])
        #expect(numbers.map(\.value) == [3600, -500, 3600, 1.5, .infinity, 9_007_199_254_740_992])
        #expect(numbers.map(\.integerValue) == [3600, -500, 3600, nil, nil, 9_007_199_254_740_993])
    }

    @Test(arguments: [
        ("01", "unexpected \"1\" after the JSON value"),
        ("1.", "unexpected end of the document; expected a digit after \".\""),
        ("-", "unexpected end of the document; expected a digit"),
        ("1e", "unexpected end of the document; expected a digit in the exponent"),
        ("[1 2]", "unexpected \"2\"; expected \",\" or \"]\" after an array element"),
        ("{\"a\" 1}", "unexpected \"1\"; expected \":\" after a member name"),
        ("{\"a\": 1,}", "unexpected \"}\"; expected a member name in double quotes"),
        (#""abc"#, "unterminated string"),
        (#""a\x""#, "invalid escape sequence \"\\x\""),
        (#""\u12G4""#, "\\u must be followed by four hex digits"),
        ("\"a\u{01}\"", "control character 0x01 in a string; it must be escaped"),
        ("tru", "unexpected \"t\"; expected a value"),
        ("nul", "unexpected \"n\"; expected a value"),
        ("[] []", "unexpected \"[\" after the JSON value"),
        ("'a'", "unexpected \"'\"; expected a value"),
    ])
    func rejectsInvalidDocuments(_ json: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse(Array(json.utf8))
        }
        do {
            _ = try JSONParser.parse(Array(json.utf8))
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func rejectsInvalidUTF8InStrings() {
        do {
            _ = try JSONParser.parse([UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")])
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.message == "the string is not valid UTF-8")
            #expect(error.offset == 0)
        }
    }

    @Test func rejectsDeepNestingWithoutCrashing() {
        let depth = JSONParser.maximumDepth
        let allowed = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) {
            try JSONParser.parse(Array(allowed.utf8))
        }
        let tooDeep = String(repeating: "[", count: 100_000)
        do {
            _ = try JSONParser.parse(Array(tooDeep.utf8))
            Issue.record("nesting 100000 deep was accepted")
        } catch {
            #expect(error.message == "arrays and objects are nested more than 256 deep")
            #expect(error.offset == depth)
        }
    }

    @Test func positionsCountLinesAndColumns() {
        do {
            _ = try JSONParser.parse(Array("[\n1,\n  x]".utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 3)
            #expect(error.offset == 7)
            #expect(error.description == "line 3, column 3 (byte offset 7): unexpected \"x\"; expected a value")
        }
    }
}
