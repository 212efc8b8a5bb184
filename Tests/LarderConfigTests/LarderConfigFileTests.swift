import Foundation
import LarderHTTP
import Testing

@testable import LarderConfig

/// What a valid config file sets, and where it goes.
@Suite("Config file")
struct LarderConfigFileTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func parse(_ json: String) throws -> LarderConfigFile {
        try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
    }

    /// A route's pattern as written: `glob *.js` or `regex \.m3u8$`.
    private func written(_ route: CacheRoute) -> String {
        switch route.pattern {
        case .glob(let glob): return "glob \(glob.pattern)"
        case .regex(let source, _): return "regex \(source)"
        }
    }

    @Test("every setting is read")
    func everySetting() throws {
        let file = try self.parse(
            #"""
            {
              "$schema": "../larder.config.schema.json",
              "routes": [
                { "match": "*.js", "strategy": "cache-first", "maxAgeSeconds": 3600 },
                { "regex": "\\.m3u8$", "strategy": "network-first", "networkTimeoutSeconds": 1.5 },
                { "match": "**", "strategy": "http" }
              ],
              "ignoreQueryParameters": ["sid", "ref_*"],
              "tunnel": ["*.apple.com"],
              "maxSize": "512MB",
              "precache": { "exclude": ["*.map", "**/debug/**"] },
              "allowCrossOrigin": true
            }
            """#
        )
        #expect(file.routes.map(self.written) == ["glob *.js", #"regex \.m3u8$"#, "glob **"])
        #expect(file.routes.map(\.strategy) == [.cacheFirst, .networkFirst, .http])
        #expect(file.routes.map(\.maxAge) == [.seconds(3600), nil, nil])
        #expect(file.routes.map(\.networkTimeout) == [nil, .milliseconds(1500), nil])
        #expect(file.queryFilter == QueryParameterFilter(patterns: ["sid", "ref_*"]))
        #expect(file.tunnelHosts == ["*.apple.com"])
        #expect(file.maxSize == 512_000_000)
        #expect(file.precacheExcludes == [ExcludeGlob("*.map"), ExcludeGlob("**/debug/**")])
        #expect(file.allowCrossOrigin)
    }

    @Test("an empty object keeps Larder's defaults")
    func defaults() throws {
        let file = try self.parse("{}")
        #expect(file.routes.isEmpty)
        #expect(file.queryFilter == .default)
        #expect(file.tunnelHosts.isEmpty)
        #expect(file.maxSize == nil)
        #expect(file.precacheExcludes.isEmpty)
        #expect(!file.allowCrossOrigin)
    }

    @Test("ignoreQueryParameters replaces the default list; [] keeps every parameter")
    func queryParameters() throws {
        let replaced = try self.parse(#"{"ignoreQueryParameters": ["sid"]}"#).queryFilter
        #expect(replaced.ignores("sid"))
        #expect(!replaced.ignores("utm_source"))
        #expect(!replaced.ignores("fbclid"))
        #expect(try self.parse(#"{"ignoreQueryParameters": []}"#).queryFilter == .none)
    }

    @Test(
        "maxSize is a size with a unit or a whole number of bytes",
        arguments: [
            (#""2GiB""#, Int64(2) << 30), (#""512MB""#, 512_000_000), (#""1.5 KiB""#, 1536), ("4096", 4096),
            ("1e3", 1000), ("0", 0),
        ]
    )
    func maxSize(_ json: String, _ bytes: Int64) throws {
        #expect(try self.parse(#"{"maxSize": \#(json)}"#).maxSize == bytes)
    }

    @Test("the file's settings are read: routes, query filter, size, precache excludes, cross-origin")
    func settings() throws {
        let file = try self.parse(
            #"""
            {
              "routes": [{ "match": "*.js", "strategy": "stale-while-revalidate" }],
              "ignoreQueryParameters": ["sid"],
              "maxSize": 1048576,
              "precache": { "exclude": ["*.map"] },
              "allowCrossOrigin": true
            }
            """#
        )
        #expect(file.routes.map(\.strategy) == [.staleWhileRevalidate])
        #expect(file.queryFilter == QueryParameterFilter(patterns: ["sid"]))
        #expect(file.maxSize == 1_048_576)
        #expect(file.precacheExcludes == [ExcludeGlob("*.map")])
        #expect(file.allowCrossOrigin)
        #expect(LarderConfigFile().maxSize == nil)
        #expect(LarderConfigFile().queryFilter == .default)
    }

    @Test("Manifests/samples/larder.json parses, sets every key and uses every strategy")
    func sample() throws {
        let path = Self.packageRoot.appendingPathComponent("Manifests/samples/larder.json").path
        let file = try LarderConfigFile(contentsOfFile: path)
        #expect(Set(file.routes.compactMap(\.strategy)) == Set(CachingStrategy.allCases))
        #expect(Set(file.routes.map(\.offline)) == Set(OfflineRule.allCases))
        #expect(Set(file.routes.map(\.offlineMatch)) == Set(OfflineMatch.allCases))
        #expect(file.routes.contains { $0.strategy == nil })
        #expect(file.navigationFallbacks.map(\.shell.absoluteString) == ["https://games.example/app/"])
        #expect(file.navigationFallbacks.first?.deny == [ExcludeGlob("/app/api/**")])
        #expect(file.routes.contains { $0.networkTimeout != nil })
        #expect(file.routes.contains { $0.maxAge != nil })
        #expect(file.routes.contains { if case .regex = $0.pattern { true } else { false } })
        #expect(file.declaredRequests.map(\.name) == ["today-page", "today-page-from-file", "streak"])
        #expect(file.declaredRequests.map(\.bodyKey) == [.graphql, .graphql, .exact])
        #expect(file.routes.contains { $0.bodyKey(forMethod: "POST", hasGraphQLQuery: false) == .json })
        #expect(file.declaredRequests.filter { !$0.usesDay }.isEmpty)
        #expect(file.writeQueue.rules.map(\.supersedeKey) == [.jsonField("id"), .jsonField("variables.id"), .capture(1)])
        #expect(file.writeQueue.rules.contains { $0.terminal })

        let document = try JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        for key in LarderConfigFile.knownKeys {
            #expect(document[member: key] != nil, "the sample does not set \(key)")
        }
        #expect(document[member: "precache"]?[member: "exclude"] != nil)
    }

    @Test("the README's Configuration section shows the sample as it is")
    func readmeShowsTheSample() throws {
        let sample = try String(contentsOf: Self.packageRoot.appendingPathComponent("Manifests/samples/larder.json"), encoding: .utf8)
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("## Configuration"))
        #expect(readme.contains("```json\n" + sample + "```"))
    }
}

@Suite("Config file: upstreamProxy")
struct UpstreamProxyConfigTests {
    @Test("a proxy URL or none is read; without the key the environment decides")
    func read() throws {
        let file = try LarderConfigFile(parsing: Array(#"{"upstreamProxy": "http://squid.lan:3128"}"#.utf8), file: "larder.json")
        #expect(file.upstreamProxy == .through(ProxyEndpoint(scheme: "http", host: "squid.lan", port: 3128)))
        let none = try LarderConfigFile(parsing: Array(#"{"upstreamProxy": "none"}"#.utf8), file: "larder.json")
        #expect(none.upstreamProxy == .direct)
        #expect(LarderConfigFile().upstreamProxy == nil)
    }

    @Test("a bad value is refused with file, line, key and the problem, never the password")
    func refused() {
        #expect(
            LarderConfigFile.problem(parsing: "{\n \"upstreamProxy\": \"ftp://u:secret@proxy:21\"\n}")
                == #"larder.json:2: upstreamProxy: the scheme "ftp" is not supported; a parent proxy is http:// or https://"#)
        #expect(
            LarderConfigFile.problem(parsing: #"{"upstreamProxy": 3128}"#)
                == #"larder.json:1: upstreamProxy: expected a proxy URL such as "http://squid.lan:3128", or "none" but found 3128"#)
    }
}
