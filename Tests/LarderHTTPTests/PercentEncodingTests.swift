import LarderHTTP
import Testing

@Suite("Percent-encoding: the one decoder and encoder every module uses")
struct PercentEncodingTests {
    @Test(
        "decoding: escapes of either case are bytes of UTF-8, a % without two hex digits stays, + stays",
        arguments: [
            ("", ""),
            ("plain", "plain"),
            ("%41", "A"),
            ("%e2%9c%93", "✓"),
            ("%E2%9C%93", "✓"),
            ("caf%C3%A9%20bar", "café bar"),
            ("a+b%2B", "a+b+"),
            ("%00", "\u{0}"),
            ("%", "%"),
            ("%4", "%4"),
            ("a%2", "a%2"),
            ("%zz", "%zz"),
            ("%4g", "%4g"),
            ("%%41", "%A"),
            ("100%", "100%"),
            ("%FF", "\u{FFFD}"),
            ("%C3", "\u{FFFD}"),
            ("%C3(", "\u{FFFD}("),
            ("%80abc", "\u{FFFD}abc"),
            ("%ED%A0%80", "\u{FFFD}\u{FFFD}\u{FFFD}"),
        ]
    )
    func decoded(_ input: String, _ expected: String) {
        #expect(PercentEncoding.decoded(Array(input.utf8)) == expected)
    }

    @Test("encoding all but unreserved bytes round-trips any text")
    func encodingAllButUnreserved() {
        let text = "<a href=\"x\">✓</a> & x=y?z#w +% ~-._"
        let encoded = PercentEncoding.encodingAllButUnreserved(text.utf8)
        #expect(encoded.utf8.allSatisfy { PercentEncoding.isUnreserved($0) || $0 == UInt8(ascii: "%") })
        #expect(encoded.hasSuffix("~-._"))
        #expect(encoded.contains("%E2%9C%93"))
        #expect(PercentEncoding.decoded(Array(encoded.utf8)) == text)
    }

    @Test("encoding non-ASCII keeps ASCII as it is")
    func encodingNonASCII() {
        #expect(PercentEncoding.encodingNonASCII("/a b/é?%41".utf8) == "/a b/%C3%A9?%41")
    }
}
