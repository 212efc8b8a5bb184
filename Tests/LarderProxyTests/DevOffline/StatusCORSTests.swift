import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderProxy

@Suite("/dev/offline.json across origins")
struct StatusCORSTests {
    private static func report(games: [String], pages: [String]) -> OfflineReport {
        OfflineReport(
            generatedAt: Date(), cacheDirectory: "/tmp", store: StoreReport(totals: .zero, maxSize: nil),
            games: games.enumerated().map { index, root in
                GameReport(
                    GameRecord(
                        slug: "g\(index)", root: root, manifestURL: root + "/offline.meta.json", displayName: nil, state: .ready,
                        filesListed: 0, filesCached: 0, bytes: 0, lastRun: Date(), lastError: nil, manifestRevision: nil, listOrder: index),
                    missing: [])
            },
            pages: pages.map {
                PageReport(PrecachePageRecord(key: try! CacheKey(url: $0), url: $0, state: .cached, lastRun: Date()), isStored: true)
            }
        )
    }

    @Test("the origins of precached games and pages and the configured ones may read it; the Origin is echoed, never *")
    func rule() {
        let cors = StatusCORS(
            configured: ["https://status.example"],
            report: Self.report(games: ["http://127.0.0.1:8000/games/flip"], pages: ["https://Docs.example:443/index.html"]))
        #expect(cors.allowOrigin(for: "http://127.0.0.1:8000") == "http://127.0.0.1:8000")
        #expect(cors.allowOrigin(for: "https://docs.example") == "https://docs.example")
        #expect(cors.allowOrigin(for: "https://DOCS.example:443") == "https://DOCS.example:443", "normalised to compare, echoed as sent")
        #expect(cors.allowOrigin(for: "https://status.example") == "https://status.example")
        for refused in [
            nil, "null", "*", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://docs.example", "https://evil.example",
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
