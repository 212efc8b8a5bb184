import LarderHTTP
import Testing

@testable import LarderConfig

/// Which route of a config file a request's cache key falls under.
@Suite("Config routes")
struct ConfigRouteTests {
    private func configuration(_ json: String) throws -> LarderConfigFile {
        try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
    }

    /// The strategy of the first route covering `url`, as the proxy picks it.
    private func strategy(_ configuration: LarderConfigFile, _ url: String) throws -> CachingStrategy? {
        let key = try CacheKey(url: url, filter: configuration.queryFilter)
        return configuration.routes.first { $0.matches(key) }?.strategy
    }

    @Test("the first matching route wins; URLs no route matches get none")
    func firstMatchWins() throws {
        let configuration = try self.configuration(
            #"""
            {
              "routes": [
                { "match": "https://cdn.example/**", "strategy": "cache-first" },
                { "regex": "\\.m3u8($|\\?)", "strategy": "network-only" },
                { "match": "*.js", "strategy": "stale-while-revalidate" },
                { "match": "/api/*", "strategy": "network-first", "networkTimeoutSeconds": 0.25 },
                { "match": "*.js", "strategy": "cache-only" }
              ]
            }
            """#
        )
        #expect(try self.strategy(configuration, "https://cdn.example/games/a.js") == .cacheFirst)
        #expect(try self.strategy(configuration, "https://CDN.example:443/live/index.m3u8") == .cacheFirst)
        #expect(try self.strategy(configuration, "https://video.example/live/index.m3u8?token=1") == .networkOnly)
        #expect(try self.strategy(configuration, "https://games.example/app/main.js") == .staleWhileRevalidate)
        #expect(try self.strategy(configuration, "https://games.example/api/today") == .networkFirst)
        #expect(try self.strategy(configuration, "https://games.example/api/today/more") == nil)
        #expect(try self.strategy(configuration, "https://games.example/index.html") == nil)

        let key = try CacheKey(url: "https://games.example/api/today")
        #expect(configuration.routes.first { $0.matches(key) }?.networkTimeout == .milliseconds(250))
    }

    @Test("a glob matches the whole key, its path or its last segment; a regex matches anywhere")
    func globVersusRegex() throws {
        let url = "https://games.example/games/flipart/index.html"
        #expect(try self.strategy(self.configuration(#"{"routes": [{"match": "games", "strategy": "http"}]}"#), url) == nil)
        #expect(try self.strategy(self.configuration(#"{"routes": [{"regex": "games", "strategy": "http"}]}"#), url) == .http)
        #expect(try self.strategy(self.configuration(#"{"routes": [{"match": "/games/**", "strategy": "http"}]}"#), url) == .http)
        #expect(try self.strategy(self.configuration(#"{"routes": [{"match": "index.html", "strategy": "http"}]}"#), url) == .http)
        #expect(try self.strategy(self.configuration(#"{"routes": [{"regex": "^games", "strategy": "http"}]}"#), url) == nil)
        #expect(
            try self.strategy(self.configuration(#"{"routes": [{"regex": "^https://games\\.example/", "strategy": "http"}]}"#), url)
                == .http)
    }

    @Test("routes see the cache key: fragment gone, ignored query parameters gone")
    func matchedAgainstTheCacheKey() throws {
        let configuration = try self.configuration(
            #"""
            {
              "ignoreQueryParameters": ["sid"],
              "routes": [
                { "regex": "sid=|#", "strategy": "network-only" },
                { "regex": "utm_source=", "strategy": "cache-only" }
              ]
            }
            """#
        )
        #expect(try self.strategy(configuration, "https://games.example/a?sid=1#top") == nil)
        #expect(try self.strategy(configuration, "https://games.example/a?utm_source=mail") == .cacheOnly)
    }

    @Test("cacheMethods and bodyKey opt a route's requests with bodies in; a route with only them is valid and changes no online answer")
    func bodyKeys() throws {
        let configuration = try self.configuration(
            #"""
            {
              "routes": [
                { "match": "/graphql", "cacheMethods": ["POST", "GET"], "bodyKey": "graphql" },
                { "match": "/api/search", "cacheMethods": ["POST", "QUERY"] },
                { "match": "/api/graphql-get", "bodyKey": "graphql" },
                { "match": "/api/**", "strategy": "network-first" }
              ]
            }
            """#
        )
        func bodyKey(_ url: String, _ method: String, graphQLQuery: Bool = false) throws -> BodyKey? {
            let key = try CacheKey(url: url)
            return configuration.routes.first { $0.matches(key) }?.bodyKey(forMethod: method, hasGraphQLQuery: graphQLQuery)
        }
        #expect(try bodyKey("https://api.example/graphql", "POST") == .graphql)
        #expect(try bodyKey("https://api.example/graphql", "GET", graphQLQuery: true) == .graphql)
        #expect(try bodyKey("https://api.example/graphql", "GET") == nil)
        #expect(try bodyKey("https://api.example/graphql", "PUT") == nil)
        #expect(try bodyKey("https://api.example/api/search", "POST") == .exact, "exact by default")
        #expect(try bodyKey("https://api.example/api/search", "QUERY") == .exact)
        #expect(try bodyKey("https://api.example/api/graphql-get", "GET", graphQLQuery: true) == .graphql)
        #expect(try bodyKey("https://api.example/api/graphql-get", "POST") == nil, "bodyKey alone keys only GET forms")
        #expect(try bodyKey("https://api.example/api/other", "POST") == nil)
        #expect(configuration.routes.prefix(3).allSatisfy { !$0.changesOnlineAnswers })
        #expect(configuration.routes[0].cacheMethods == ["POST", "GET"])
    }
}
