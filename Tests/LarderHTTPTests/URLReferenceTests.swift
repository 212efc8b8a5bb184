import LarderHTTP
import Testing

/// Reference resolution as RFC 3986 section 5.4 lists it, and the dot-segment removal it and cache
/// keys share (one implementation, with a fast path for paths that have no dot segment).
struct URLReferenceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var reference: String
        var expected: String
        var testDescription: String { "\(self.reference) -> \(self.expected)" }
    }

    /// RFC 3986 5.4.1 and 5.4.2 against `http://a/b/c/d;p?q`.
    static let rfcExamples: [Case] = [
        .init(reference: "g:h", expected: "g:h"),
        .init(reference: "g", expected: "http://a/b/c/g"),
        .init(reference: "./g", expected: "http://a/b/c/g"),
        .init(reference: "g/", expected: "http://a/b/c/g/"),
        .init(reference: "/g", expected: "http://a/g"),
        .init(reference: "//g", expected: "http://g"),
        .init(reference: "?y", expected: "http://a/b/c/d;p?y"),
        .init(reference: "g?y", expected: "http://a/b/c/g?y"),
        .init(reference: "#s", expected: "http://a/b/c/d;p?q#s"),
        .init(reference: "g#s", expected: "http://a/b/c/g#s"),
        .init(reference: "g?y#s", expected: "http://a/b/c/g?y#s"),
        .init(reference: ";x", expected: "http://a/b/c/;x"),
        .init(reference: "g;x", expected: "http://a/b/c/g;x"),
        .init(reference: "", expected: "http://a/b/c/d;p?q"),
        .init(reference: ".", expected: "http://a/b/c/"),
        .init(reference: "./", expected: "http://a/b/c/"),
        .init(reference: "..", expected: "http://a/b/"),
        .init(reference: "../", expected: "http://a/b/"),
        .init(reference: "../g", expected: "http://a/b/g"),
        .init(reference: "../..", expected: "http://a/"),
        .init(reference: "../../", expected: "http://a/"),
        .init(reference: "../../g", expected: "http://a/g"),
        .init(reference: "../../../g", expected: "http://a/g"),
        .init(reference: "../../../../g", expected: "http://a/g"),
        .init(reference: "/./g", expected: "http://a/g"),
        .init(reference: "/../g", expected: "http://a/g"),
        .init(reference: "g.", expected: "http://a/b/c/g."),
        .init(reference: ".g", expected: "http://a/b/c/.g"),
        .init(reference: "g..", expected: "http://a/b/c/g.."),
        .init(reference: "..g", expected: "http://a/b/c/..g"),
        .init(reference: "./../g", expected: "http://a/b/g"),
        .init(reference: "./g/.", expected: "http://a/b/c/g/"),
        .init(reference: "g/./h", expected: "http://a/b/c/g/h"),
        .init(reference: "g/../h", expected: "http://a/b/c/h"),
        .init(reference: "g;x=1/./y", expected: "http://a/b/c/g;x=1/y"),
        .init(reference: "g;x=1/../y", expected: "http://a/b/c/y"),
        .init(reference: "g?y/./x", expected: "http://a/b/c/g?y/./x"),
        .init(reference: "g#s/../x", expected: "http://a/b/c/g#s/../x"),
        .init(reference: "http:g", expected: "http:g"),
    ]

    @Test(arguments: rfcExamples)
    func resolvesAsRFC3986(_ example: Case) throws {
        let base = try HTTPURL(parsing: "http://a/b/c/d;p?q")
        #expect(URLReference(example.reference).resolved(against: base).url == example.expected)
    }

    @Test(arguments: [
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        ("/.well-known/x", "/.well-known/x"),
        ("/a/.b/..c/...", "/a/.b/..c/..."),
        ("/a/b", "/a/b"),
        ("", ""),
        ("/", "/"),
        ("/..", "/"),
        (".", ""),
    ])
    func removesDotSegments(_ path: String, _ expected: String) {
        #expect(URLReference.removingDotSegments(path) == expected)
        #expect(URLReference.removingDotSegments(Array(path.utf8)) == Array(expected.utf8))
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("  both  ", "both"),
        ("\u{FEFF}bom", "bom"),
        ("\u{00A0}\u{2003}wide\n", "wide"),
        (" \t\n", ""),
        ("", ""),
        ("in ner", "in ner"),
    ])
    func trimsUnicodeWhitespace(_ text: String, _ expected: String) {
        #expect(text.trimmingUnicodeWhitespace() == expected)
        #expect(text[...].trimmingUnicodeWhitespace() == expected)
    }
}
