import LarderHTTP
import Testing

@testable import LarderConfig

/// A route's regex that Larder's engine cannot match without backtracking, or that is too large,
/// stops the config from loading with the file, line, key and the construct named
/// (docs/FORMATS.md, "Route regular expressions").
@Suite("Config file: route regular expressions")
struct RouteRegexConfigTests {
    private func error(parsing json: String) -> ConfigFileError? {
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "unsupported or oversized regexes in routes and queue routes are refused with what and where",
        arguments: [
            (
                #"{"routes": [{"regex": "^https://a/(\\w+)/\\1", "strategy": "cache-first"}]}"#,
                #"larder.json:1: routes[0].regex: "^https://a/(\\w+)/\\1" is not a valid regular expression: backreferences (\1) are not supported (at character 18)"#
            ),
            (
                """
                {
                  "queue": {"routes": [
                    {"regex": "^https://a/(?<=x)"}
                  ]}
                }
                """,
                #"larder.json:3: queue.routes[0].regex: "^https://a/(?<=x)" is not a valid regular expression: lookbehind (?<=…) and (?<!…) is not supported (at character 12)"#
            ),
            (
                #"{"routes": [{"regex": "(x{500}){5}", "strategy": "cache-first"}]}"#,
                #"larder.json:1: routes[0].regex: "(x{500}){5}" is not a valid regular expression: the expression is too large: over 256 steps once its repetitions are expanded"#
            ),
            // 912 characters that a URL of 8 KiB took most of a second to match against.
            (
                #"{"routes": [{"regex": "^http://h/r/"# + String(repeating: ".*a", count: 300) + #"", "strategy": "cache-first"}]}"#,
                #"larder.json:1: routes[0].regex: "^http://h/r/"# + String(repeating: ".*a", count: 300)
                    + #"" is not a valid regular expression: the expression is too large: over 256 steps once its repetitions are expanded"#
            ),
        ]
    )
    func refused(_ json: String, _ expected: String) {
        #expect(self.error(parsing: json)?.description == expected)
    }

    @Test("a route regex that needs no backtracking loads, and (a+)+$ is one of them")
    func accepted() throws {
        let file = try LarderConfigFile(
            parsing: Array(#"{"routes": [{"regex": "(a+)+$", "strategy": "network-first"}]}"#.utf8), file: "larder.json")
        let route = try #require(file.routes.first)
        #expect(route.pattern.matches(try CacheKey(url: "http://a.example/aaaa")))
        #expect(!route.pattern.matches(try CacheKey(url: "http://a.example/" + String(repeating: "a", count: 5_000) + "b")))
    }
}
