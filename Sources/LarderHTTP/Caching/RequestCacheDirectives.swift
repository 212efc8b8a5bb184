/// What a request's `Cache-Control` (and `Pragma`) asks of the cache (RFC 9111 section 5.2.1).
public struct RequestCacheDirectives: Sendable, Hashable {
    /// `no-cache`, or `Pragma: no-cache` without a `Cache-Control` (RFC 9111 section 5.4): a stored
    /// response may not be used without validation.
    public var noCache = false
    /// `no-store`: the response is not stored.
    public var noStore = false
    /// `max-age`: the oldest stored response acceptable, in seconds (an invalid value counts as 0).
    public var maxAge: Int?
    /// `min-fresh`: how much freshness must be left, in seconds.
    public var minFresh: Int?
    /// `max-stale`: present when the client accepts a stale response; the value limits how stale
    /// (nil inside means any staleness).
    public var maxStale: Int??
    /// `only-if-cached`: answer from the cache or with 504, never from the network.
    public var onlyIfCached = false

    /// No directives.
    public init() {}

    /// Parses a request's `Cache-Control` and `Pragma` field values.
    public init(cacheControl: [String], pragma: [String]) {
        let directives = CacheControlDirectives(cacheControl)
        self.noCache = directives.contains("no-cache")
        if cacheControl.isEmpty {
            self.noCache = CacheControlDirectives(pragma).contains("no-cache")
        }
        self.noStore = directives.contains("no-store")
        self.onlyIfCached = directives.contains("only-if-cached")
        self.maxAge = Self.seconds(directives.seconds("max-age"), invalid: 0)
        // An invalid min-fresh asks for nothing it could be held to.
        self.minFresh = Self.seconds(directives.seconds("min-fresh"), invalid: nil)
        if directives.contains("max-stale") {
            // A bare max-stale accepts any staleness; an invalid value is read as bare (lenient).
            if case .value(let seconds)? = directives.seconds("max-stale") {
                self.maxStale = .some(seconds)
            } else {
                self.maxStale = .some(nil)
            }
        }
    }

    private static func seconds(_ value: CacheControlDirectives.DeltaSeconds?, invalid: Int?) -> Int? {
        switch value {
        case .value(let seconds)?: return seconds
        case .invalid?: return invalid
        case nil: return nil
        }
    }
}
