import LarderHTTP
import Testing

@testable import LarderConfig

/// Every kind of bad config file is refused with a message naming the file, the line and the key path.
@Suite("Config file errors")
struct ConfigFileErrorTests {
    private static let strategies = "http, cache-first, network-first, stale-while-revalidate, network-only, cache-only"

    private func error(parsing json: String) -> ConfigFileError? {
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a bad setting is named by file, line and key path",
        arguments: [
            (
                "unknown key at the top level",
                """
                {
                  "routes": [],
                  "unknownKey": 1
                }
                """,
                "larder.json:3: unknownKey: not a Larder setting (known: routes, navigationFallback, requests, ignoreQueryParameters, tunnel, maxSize, precache, allowCrossOrigin, statusOrigins, queue, upstreamProxy, lan, healthChecks, $schema)"
            ),
            (
                "unknown key inside a route",
                """
                {
                  "routes": [
                    { "match": "*.js", "strategy": "cache-first" },
                    {
                      "match": "*.css",
                      "stratgy": "cache-first"
                    }
                  ]
                }
                """,
                "larder.json:6: routes[1].stratgy: not a route setting (known: match, regex, strategy, networkTimeoutSeconds, maxAgeSeconds, offline, offlineMatch, cacheMethods, bodyKey)"
            ),
            (
                "unknown key inside precache",
                """
                {
                  "precache": { "excludes": ["*.map"] }
                }
                """,
                "larder.json:2: precache.excludes: not a precache setting (known: exclude)"
            ),
            (
                "a key that is not an identifier is quoted",
                #"{"max size": 1}"#,
                #"larder.json:1: ["max size"]: not a Larder setting (known: routes, navigationFallback, requests, ignoreQueryParameters, tunnel, maxSize, precache, allowCrossOrigin, statusOrigins, queue, upstreamProxy, lan, healthChecks, $schema)"#
            ),
            (
                "a key given twice",
                """
                {
                  "tunnel": ["a.example"],
                  "tunnel": ["b.example"]
                }
                """,
                "larder.json:3: tunnel: set twice; it is already set on line 2"
            ),
            (
                "the document is not an object",
                """

                ["routes"]
                """,
                "larder.json:2: expected an object of settings but found an array"
            ),
            (
                "wrong type: a string for an array",
                """
                {
                  "tunnel": "*.apple.com"
                }
                """,
                #"larder.json:2: tunnel: expected an array of host globs but found "*.apple.com""#
            ),
            (
                "wrong type: an element of a string array",
                """
                {
                  "ignoreQueryParameters": [
                    "utm_*",
                    7
                  ]
                }
                """,
                "larder.json:4: ignoreQueryParameters[1]: expected a query parameter name or glob but found 7"
            ),
            (
                "wrong type: an empty glob",
                """
                {
                  "precache": {
                    "exclude": ["*.map", ""]
                  }
                }
                """,
                #"larder.json:3: precache.exclude[1]: expected a URL glob but found """#
            ),
            (
                "wrong type: a string for a boolean",
                """
                {
                  "allowCrossOrigin": "yes"
                }
                """,
                #"larder.json:2: allowCrossOrigin: expected true or false but found "yes""#
            ),
            (
                "wrong type: routes is an object",
                """
                {
                  "routes": { "match": "*.js", "strategy": "cache-first" }
                }
                """,
                "larder.json:2: routes: expected an array of route objects but found an object"
            ),
            (
                "wrong type: a route is a string",
                """
                {
                  "routes": [
                    "*.js"
                  ]
                }
                """,
                #"larder.json:3: routes[0]: expected a route object but found "*.js""#
            ),
            (
                "wrong type: $schema",
                #"{"$schema": null}"#,
                "larder.json:1: $schema: expected a string but found null"
            ),
            (
                "bad strategy",
                """
                {
                  "routes": [
                    { "match": "*.js", "strategy": "cache-first" },
                    { "match": "*.html",
                      "strategy": "cache-frist" }
                  ]
                }
                """,
                #"larder.json:5: routes[1].strategy: expected one of \#(Self.strategies) but found "cache-frist""#
            ),
            (
                "a strategy that is not a string",
                #"{"routes": [{"match": "*.js", "strategy": 1}]}"#,
                "larder.json:1: routes[0].strategy: expected one of \(Self.strategies) but found 1"
            ),
            (
                "no strategy",
                """
                {
                  "routes": [
                    { "match": "*.js" }
                  ]
                }
                """,
                "larder.json:3: routes[0]: needs a strategy (one of \(Self.strategies)), or an offline, offlineMatch, cacheMethods or bodyKey setting"
            ),
            (
                "both match and regex",
                """
                {
                  "routes": [
                    {
                      "match": "*.js",
                      "regex": "\\\\.js$",
                      "strategy": "cache-first"
                    }
                  ]
                }
                """,
                "larder.json:5: routes[0]: has both match and regex; give exactly one"
            ),
            (
                "neither match nor regex",
                """
                {
                  "routes": [
                    { "match": "*.js", "strategy": "cache-first" },
                    { "strategy": "network-only" }
                  ]
                }
                """,
                "larder.json:4: routes[1]: needs match (a URL glob) or regex (a regular expression)"
            ),
            (
                "an empty match",
                #"{"routes": [{"match": "", "strategy": "http"}]}"#,
                #"larder.json:1: routes[0].match: expected a URL glob but found """#
            ),
            (
                "negative timeout",
                """
                {
                  "routes": [
                    { "match": "*.html", "strategy": "network-first", "networkTimeoutSeconds": -3 }
                  ]
                }
                """,
                "larder.json:3: routes[0].networkTimeoutSeconds: expected a positive number of seconds (at most 86400) but found -3"
            ),
            (
                "zero timeout",
                #"{"routes": [{"match": "*.html", "strategy": "network-first", "networkTimeoutSeconds": 0}]}"#,
                "larder.json:1: routes[0].networkTimeoutSeconds: expected a positive number of seconds (at most 86400) but found 0"
            ),
            (
                "timeout as a string",
                #"{"routes": [{"match": "*.html", "strategy": "network-first", "networkTimeoutSeconds": "3"}]}"#,
                #"larder.json:1: routes[0].networkTimeoutSeconds: expected a positive number of seconds (at most 86400) but found "3""#
            ),
            (
                "timeout too long",
                #"{"routes": [{"match": "*.html", "strategy": "network-first", "networkTimeoutSeconds": 1e300}]}"#,
                "larder.json:1: routes[0].networkTimeoutSeconds: expected a positive number of seconds (at most 86400) but found 1e300"
            ),
            (
                "fractional max age",
                #"{"routes": [{"match": "*.js", "strategy": "cache-first", "maxAgeSeconds": 1.5}]}"#,
                "larder.json:1: routes[0].maxAgeSeconds: expected a positive whole number of seconds (at most 2147483647) but found 1.5"
            ),
            (
                "zero max age",
                #"{"routes": [{"match": "*.js", "strategy": "cache-first", "maxAgeSeconds": 0}]}"#,
                "larder.json:1: routes[0].maxAgeSeconds: expected a positive whole number of seconds (at most 2147483647) but found 0"
            ),
            (
                "bad maxSize unit",
                """
                {
                  "maxSize": "12XB"
                }
                """,
                "larder.json:2: maxSize: '12XB' is not a size: unknown unit 'XB' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ),
            (
                "negative maxSize",
                #"{"maxSize": -1}"#,
                #"larder.json:1: maxSize: expected a size such as "2GiB" or "512MB", or a whole number of bytes but found -1"#
            ),
            (
                "fractional maxSize in bytes",
                #"{"maxSize": 1.5}"#,
                #"larder.json:1: maxSize: expected a size such as "2GiB" or "512MB", or a whole number of bytes but found 1.5"#
            ),
            (
                "maxSize of the wrong type",
                #"{"maxSize": true}"#,
                #"larder.json:1: maxSize: expected a size such as "2GiB" or "512MB", or a whole number of bytes but found true"#
            ),
            (
                "invalid JSON: line and column",
                """
                {
                  "tunnel": ["a.example",],
                  "maxSize": "1GiB"
                }
                """,
                #"larder.json:2:26: invalid JSON: unexpected "]"; expected a value"#
            ),
            (
                "invalid JSON: a missing comma",
                """
                {
                  "maxSize": "1GiB"
                  "tunnel": []
                }
                """,
                #"larder.json:3:3: invalid JSON: unexpected """; expected "," or "}" after an object member"#
            ),
            (
                "an unknown offline rule",
                #"{"routes": [{"match": "*.css", "offline": "lenient"}]}"#,
                #"larder.json:1: routes[0].offline: expected one of relaxed, strict but found "lenient""#
            ),
            (
                "an unknown offline match",
                #"{"routes": [{"match": "/api/**", "offlineMatch": "fuzzy"}]}"#,
                #"larder.json:1: routes[0].offlineMatch: expected one of exact, ignore-cache-busters, ignore-query but found "fuzzy""#
            ),
            (
                "an unknown body key",
                #"{"routes": [{"match": "/graphql", "cacheMethods": ["POST"], "bodyKey": "xml"}]}"#,
                #"larder.json:1: routes[0].bodyKey: expected one of exact, json, graphql but found "xml""#
            ),
            (
                "a method cacheMethods does not take",
                #"{"routes": [{"match": "/api/**", "cacheMethods": ["POST", "DELETE"]}]}"#,
                #"larder.json:1: routes[0].cacheMethods[1]: expected one of "POST", "QUERY", "GET" but found "DELETE""#
            ),
            (
                "cacheMethods not an array",
                #"{"routes": [{"match": "/api/**", "cacheMethods": "POST"}]}"#,
                #"larder.json:1: routes[0].cacheMethods: expected an array of methods ("POST", "QUERY", "GET") but found "POST""#
            ),
            (
                "empty cacheMethods",
                #"{"routes": [{"match": "/api/**", "cacheMethods": []}]}"#,
                #"larder.json:1: routes[0].cacheMethods: expected a non-empty array of methods ("POST", "QUERY", "GET") but found an array"#
            ),
            (
                "GET without the graphql body key",
                #"{"routes": [{"match": "/api/**", "cacheMethods": ["GET"], "bodyKey": "json"}]}"#,
                #"larder.json:1: routes[0].cacheMethods[0]: "GET" is keyed only as a GraphQL ?query= form and needs bodyKey "graphql""#
            ),
            (
                "a body key other than graphql alone",
                #"{"routes": [{"match": "/api/**", "bodyKey": "json"}]}"#,
                #"larder.json:1: routes[0].bodyKey: bodyKey "json" needs cacheMethods (e.g. ["POST"]); only "graphql" works alone"#
            ),
            (
                "a navigation fallback without url",
                #"{"navigationFallback": {"allow": ["/app/**"]}}"#,
                "larder.json:1: navigationFallback: needs url (the app shell page, an absolute http(s) URL)"
            ),
            (
                "a navigation fallback with a relative url",
                #"{"navigationFallback": [{"url": "/index.html"}]}"#,
                #"larder.json:1: navigationFallback[0].url: "/index.html" is not an absolute http(s) URL: \#(Self.urlError("/index.html"))"#
            ),
            (
                "two navigation fallbacks for one origin",
                #"{"navigationFallback": [{"url": "http://a.test/"}, {"url": "http://a.test/other"}]}"#,
                "larder.json:1: navigationFallback: names http://a.test twice; give one app shell per origin"
            ),
            (
                "an empty file",
                "",
                "larder.json:1:1: invalid JSON: the document is empty"
            ),
        ]
    )
    func refused(_ name: String, _ json: String, _ expected: String) {
        #expect(self.error(parsing: json)?.description == expected, "\(name)")
    }

    static func urlError(_ text: String) -> String {
        do {
            _ = try HTTPURL(parsing: text)
            return "parsed"
        } catch {
            return "\(error)"
        }
    }

    @Test("an invalid regular expression is named, with the line and key path")
    func invalidRegex() throws {
        let json = """
            {
              "routes": [
                { "match": "*.js", "strategy": "cache-first" },
                { "regex": "^https://(cdn|static\\\\.example/", "strategy": "cache-first" }
              ]
            }
            """
        let error = try #require(self.error(parsing: json))
        #expect(error.line == 4)
        #expect(error.keyPath == "routes[1].regex")
        #expect(error.message.hasPrefix(#""^https://(cdn|static\\.example/" is not a valid regular expression: "#))
        #expect(error.description.hasPrefix(#"larder.json:4: routes[1].regex: "^https://(cdn|static\\.example/" is not"#))
    }

    @Test("errors carry their parts: file, line, column, key path, message")
    func parts() throws {
        let error = try #require(self.error(parsing: "{\n  \"routes\": [{\"match\": \"*.js\", \"strategy\": \"fast\"}]\n}"))
        #expect(error.file == "larder.json")
        #expect(error.line == 2)
        #expect(error.column == nil)
        #expect(error.keyPath == "routes[0].strategy")
        #expect(error.message == #"expected one of \#(Self.strategies) but found "fast""#)

        let syntax = try #require(self.error(parsing: "{\n  \"routes\": [}"))
        #expect(syntax.line == 2)
        #expect(syntax.column == 14)
        #expect(syntax.keyPath == nil)
    }

    @Test("a file that cannot be read is named")
    func unreadable() {
        do {
            _ = try LarderConfigFile(contentsOfFile: "/nonexistent/larder.json")
            Issue.record("a missing file was read")
        } catch {
            #expect(error.description == "/nonexistent/larder.json: no readable file there")
            #expect(error.line == nil)
        }
    }
}
