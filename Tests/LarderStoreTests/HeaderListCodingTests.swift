import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

struct HeaderListCodingTests {
    @Test("headers round-trip through the index form, by the fast path where it applies and the general one where not")
    func roundTrip() {
        let lists: [[HeaderField]] = [
            [],
            [HeaderField(name: "Content-Type", value: "text/html; charset=utf-8")],
            [HeaderField(name: "ETag", value: "W/\"a\\\"b\""), HeaderField(name: "Link", value: "</x.css>; rel=preload, </y/z>")],
            [HeaderField(name: "X-Unicode", value: "café ☕ 𝄞"), HeaderField(name: "X-Empty", value: "")],
            [HeaderField(name: "X-Control", value: "tab\there\u{1}")],
        ]
        for headers in lists {
            let text = HeaderListCoding.encode(headers)
            #expect(HeaderListCoding.decode(text) == headers, "\(text)")
        }
        // What encode writes is JSON any reader takes (older indexes were written by JSONEncoder).
        for headers in lists {
            let text = HeaderListCoding.encode(headers)
            let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))
            #expect(pairs == headers.map { [$0.name, $0.value] }, "\(text)")
        }
        #expect(HeaderListCoding.encode(lists[4]) == #"[["X-Control","tab\there\u0001"]]"#)
        #expect(HeaderListCoding.encode(lists[2]) == #"[["ETag","W/\"a\\\"b\""],["Link","</x.css>; rel=preload, </y/z>"]]"#)
        // The fast path takes what encode writes for ordinary headers.
        #expect(HeaderListCoding.decodeCompact(HeaderListCoding.encode(lists[2])) == lists[2])
        #expect(HeaderListCoding.decodeCompact(HeaderListCoding.encode(lists[3])) == lists[3])
    }

    @Test("malformed index text is refused by both paths")
    func malformed() {
        for text in ["", "[", "[[\"a\"]]", "[[\"a\",\"b\"]", "[[\"a\",\"b\"]]x", "{}", "[[\"a\",1]]", "[[\"a\",\"b\\q\"]]"] {
            #expect(HeaderListCoding.decodeCompact(text) == nil, "\(text)")
            #expect(HeaderListCoding.decode(text) == nil, "\(text)")
        }
        #expect(HeaderListCoding.decode(" [ [\"a\" , \"b\"] ] ") == [HeaderField(name: "a", value: "b")])
    }
}
