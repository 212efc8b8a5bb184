/// One `routes` entry of the config file: which URLs it covers and how they are served.
public struct CacheRoute: Sendable {
    /// The URLs a route covers.
    public enum Pattern: Sendable {
        /// A glob matched against the cache key as `--exclude` globs are (`*`, `**`).
        case glob(ExcludeGlob)
        /// A regular expression that must match somewhere in the cache key.
        case regex(source: String, expression: RouteRegex)
    }

    /// The URLs this route covers.
    public var pattern: Pattern
    /// How they are served (nil: Larder's default strategies, docs/SERVING.md).
    public var strategy: CachingStrategy?
    /// How long `network-first` waits for the network when a copy is stored (nil: the proxy's default).
    public var networkTimeout: Duration?
    /// How long after it was stored an entry may be answered from the cache by `cache-first`,
    /// `stale-while-revalidate` and `cache-only`, and how long `http` considers it fresh at most
    /// (nil: no limit).
    public var maxAge: Duration?
    /// Which stored responses may answer when the origin cannot.
    public var offline: OfflineRule
    /// Which stored responses may stand in for a request with none of its own when the origin cannot answer.
    public var offlineMatch: OfflineMatch
    /// Methods whose requests are keyed by their body and answered from the store when the origin
    /// cannot answer (config `cacheMethods`: `POST`, `QUERY`, and `GET` for GraphQL `?query=` forms).
    public var cacheMethods: Set<String>
    /// How those bodies are keyed (config `bodyKey`; nil: `exact` for `cacheMethods`, and GraphQL
    /// GET forms not keyed).
    public var bodyKey: BodyKey?

    /// Creates a route.
    public init(
        pattern: Pattern,
        strategy: CachingStrategy?,
        networkTimeout: Duration? = nil,
        maxAge: Duration? = nil,
        offline: OfflineRule = .relaxed,
        offlineMatch: OfflineMatch = .ignoreCacheBusters,
        cacheMethods: Set<String> = [],
        bodyKey: BodyKey? = nil
    ) {
        self.pattern = pattern
        self.strategy = strategy
        self.networkTimeout = networkTimeout
        self.maxAge = maxAge
        self.offline = offline
        self.offlineMatch = offlineMatch
        self.cacheMethods = cacheMethods
        self.bodyKey = bodyKey
    }

    /// How a request with `method` (upper-case) on this route is keyed, nil when it is not: a
    /// method in `cacheMethods` by `bodyKey` (default `exact`), and a GraphQL GET form (a GET
    /// with a `query` parameter, `hasGraphQLQuery`) when `bodyKey` is `graphql`. A GET is keyed
    /// only as a GraphQL form.
    public func bodyKey(forMethod method: String, hasGraphQLQuery: Bool) -> BodyKey? {
        if method == "GET" {
            return hasGraphQLQuery && self.bodyKey == .graphql ? .graphql : nil
        }
        return self.cacheMethods.contains(method) ? self.bodyKey ?? .exact : nil
    }

    /// Whether the route changes how a request is answered while the origin answers (a strategy
    /// or `maxAgeSeconds`); a route that only sets offline behaviour leaves plain hits as they are.
    public var changesOnlineAnswers: Bool {
        self.strategy != nil || self.maxAge != nil
    }

    /// Whether the route covers `key`.
    public func matches(_ key: CacheKey) -> Bool {
        self.pattern.matches(key)
    }
}
