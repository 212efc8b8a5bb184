import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline

@Suite("/dev/offline.json across origins")
struct StatusCORSTests {
    @Test("only the configured origins may read it, whatever is precached; the Origin is echoed, never *")
    func rule() {
        let cors = StatusCORS(configured: ["https://status.example", "http://127.0.0.1:8000"])
        #expect(cors.allowOrigin(for: "http://127.0.0.1:8000") == "http://127.0.0.1:8000")
        #expect(cors.allowOrigin(for: "https://status.example") == "https://status.example")
        #expect(
            cors.allowOrigin(for: "https://STATUS.example:443") == "https://STATUS.example:443", "normalised to compare, echoed as sent")
        for refused in [
            nil, "null", "*", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://status.example", "https://evil.example",
            "https://status.example/path",
        ] {
            #expect(cors.allowOrigin(for: refused) == nil, "\(refused ?? "no Origin")")
        }
    }

    @Test(
        "an origin is scheme, host and port: anything else is not one",
        arguments: [
            ("https://App.Example", "https://app.example"), ("http://a.example:80", "http://a.example"),
            ("http://[::1]:8080", "http://[::1]:8080"), ("https://a.example/", nil), ("https://a.example/x", nil), ("null", nil),
            ("ftp://a.example", nil), ("https://a.example?q", nil), ("a.example", nil),
        ] as [(String, String?)])
    func origin(text: String, expected: String?) {
        #expect(HTTPURL.canonicalOrigin(text) == expected)
    }
}
