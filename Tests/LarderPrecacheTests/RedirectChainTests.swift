import LarderHTTP
import Testing

@testable import LarderPrecache

/// The redirects a `page` line follows (docs/SERVING.md, "Redirects").
@Suite("Redirect chain")
struct RedirectChainTests {
    static let start = try! HTTPURL(parsing: "https://site.example/db/table?_filter=a")

    @Test("a Location is resolved against the URL it came from, to this origin or another")
    func resolves() throws {
        var chain = RedirectChain(start: Self.start, queryFilter: .default)
        #expect(try chain.follow(location: "/db/table?a=1").absoluteString == "https://site.example/db/table?a=1")
        #expect(try chain.follow(location: " https://other.example/x ").absoluteString == "https://other.example/x")
        #expect(chain.urls.count == 3)
    }

    @Test(
        "no Location, a non-HTTP one, a loop (ignored query parameters too) and an eleventh redirect fail, naming the URLs",
        arguments: [
            ([String?.none], "https://site.example/db/table?_filter=a redirects without a Location"),
            ([""], "https://site.example/db/table?_filter=a redirects without a Location"),
            (
                ["mailto:a@site.example"],
                "https://site.example/db/table?_filter=a redirects to mailto:a@site.example, which is not an http or https URL"
            ),
            (
                ["/b", "/db/table?_filter=a&utm_source=x"],
                "redirects in a loop: https://site.example/b leads back to https://site.example/db/table?_filter=a&utm_source=x"
            ),
            ((1...11).map { "/\($0)" }, "more than 10 redirects (the last from https://site.example/10)"),
        ]
    )
    func fails(locations: [String?], reason: String) {
        var chain = RedirectChain(start: Self.start, queryFilter: .default)
        var problem: RedirectChain.Problem?
        for location in locations {
            do {
                _ = try chain.follow(location: location)
            } catch {
                problem = error
                break
            }
        }
        #expect(problem?.reason == reason)
    }

    @Test("ten redirects are followed")
    func tenHops() throws {
        var chain = RedirectChain(start: Self.start, queryFilter: .default)
        for hop in 1...10 {
            _ = try chain.follow(location: "/\(hop)")
        }
        #expect(chain.urls.count == 11)
    }
}
