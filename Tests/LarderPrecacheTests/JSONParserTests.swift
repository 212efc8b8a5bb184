import Testing

@testable import LarderPrecache

struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        (" false ", .bool(false)),
        ("-0.5e+3", .number),
        ("0", .number),
        ("1E9", .number),
        (#""a\"b\\c\/d\n\t""#, .string("a\"b\\c/d\n\t")),
        (#""\u00e9\u4e2d""#, .string("é中")),
        (#""\ud83c\udfae""#, .string("🎮")),
        (#""\ud83c""#, .string("\u{FFFD}")),
        (#""\udfae x""#, .string("\u{FFFD} x")),
        (#""\ud83cA""#, .string("\u{FFFD}A")),
        ("\u{FEFF}[]", .array([])),
        ("[1, \"a\", [], {}]", .array([.number, .string("a"), .array([]), .object([])])),
        (
            #"{"a": 1, "b": [true], "a": "x"}"#,
            .object([
                JSONMember(name: "a", value: .number), JSONMember(name: "b", value: .array([.bool(true)])),
                JSONMember(name: "a", value: .string("x")),
            ])
        ),
    ])
    func parsesValidDocuments(_ json: String, _ expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(json.utf8)) == expected)
    }

    @Test func repeatedMemberNamesResolveToTheLast() throws {
        let value = try JSONParser.parse(Array(#"{"skip": false, "skip": true}"#.utf8))
        #expect(value[member: "skip"] == .bool(true))
        #expect(value[member: "missing"] == nil)
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
