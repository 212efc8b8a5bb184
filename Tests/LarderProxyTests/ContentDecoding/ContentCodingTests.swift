import LarderHTTP
import Testing

@testable import LarderProxy

@Suite("ContentCoding: the Content-Encoding values Larder decodes")
struct ContentCodingTests {
    @Test(
        "a Content-Encoding value and the coding it names",
        arguments: [
            ("gzip", ContentCoding?.some(.gzip)),
            ("GZip", .gzip),
            (" x-gzip ", .gzip),
            ("deflate", .deflate),
            ("DEFLATE\t", .deflate),
            ("identity", nil),
            ("br", nil),
            ("zstd", nil),
            ("gzip, br", nil),
            ("", nil),
        ]
    )
    func names(value: String, expected: ContentCoding?) {
        #expect(ContentCoding(contentEncoding: value) == expected)
    }
}
