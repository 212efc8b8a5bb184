import Foundation

/// What to do with a GET or HEAD, decided from the strategy, the stored response (if any) and the
/// request's directives, before any I/O.
public enum CacheDecision: Sendable, Hashable {
    /// Answer from the stored response without contacting upstream.
    case answerFromCache(detail: String?)
    /// Answer from the stored response, and refresh it from upstream in the background.
    case answerAndRefresh(detail: String)
    /// Ask upstream (conditionally when the stored response has validators). `timeout`: how long
    /// to wait for the answer before serving the stored response instead (nil: as long as it takes).
    case forward(reason: CacheStatus.ForwardReason, timeout: Duration?)
    /// Answer 504 without contacting upstream (`only-if-cached`, `cache-only`).
    case gatewayTimeout(detail: String)

    /// The inputs of a decision.
    public struct Context: Sendable {
        /// The strategy in force for the URL.
        public var strategy: CachingStrategy
        /// The route's `maxAgeSeconds`, if any.
        public var routeMaxAge: Duration?
        /// The route's (or the proxy's) network timeout for `network-first`.
        public var networkTimeout: Duration
        /// The request's directives.
        public var request: RequestCacheDirectives

        /// Creates a context.
        public init(strategy: CachingStrategy, routeMaxAge: Duration? = nil, networkTimeout: Duration, request: RequestCacheDirectives) {
            self.strategy = strategy
            self.routeMaxAge = routeMaxAge
            self.networkTimeout = networkTimeout
            self.request = request
        }
    }

    /// Decides. `stored` is the stored response's freshness and directives, nil on a miss (or when
    /// no stored variant matches); a route's `maxAgeSeconds` counts from its `responseTime`.
    public static func decide(_ context: Context, stored: ResponseFreshness?, now: Date) -> CacheDecision {
        let request = context.request
        guard let stored else {
            if context.strategy == .cacheOnly {
                return .gatewayTimeout(detail: "cache-only")
            }
            if request.onlyIfCached {
                return .gatewayTimeout(detail: "only-if-cached")
            }
            return .forward(reason: .uriMiss, timeout: nil)
        }
        // A route's maxAgeSeconds bounds how long this copy has been held, as Workbox's expiration
        // does: from when it arrived (not when its body was committed, which a busy disk delays),
        // and without the upstream Age a CDN reports.
        if stored.keptNoStore {
            // Kept against its no-store for when the origin cannot answer (KeptNoStore): online it
            // is never the answer, not even under cache-only, which then has no copy it may use.
            if context.strategy == .cacheOnly { return .gatewayTimeout(detail: "cache-only") }
            return request.onlyIfCached ? .gatewayTimeout(detail: "only-if-cached") : .forward(reason: .stale, timeout: nil)
        }
        if stored.disconnectedOnlyRedirect != nil, context.strategy != .cacheOnly {
            // Kept for when the origin cannot answer (DisconnectedRedirect): online, whatever the
            // strategy, the origin is asked.
            return request.onlyIfCached ? .gatewayTimeout(detail: "only-if-cached") : .forward(reason: .stale, timeout: nil)
        }
        let heldFor = now.timeIntervalSince(stored.responseTime)
        let withinRouteMaxAge = context.routeMaxAge.map { heldFor <= $0.seconds } ?? true

        switch context.strategy {
        case .cacheOnly:
            return .answerFromCache(detail: "cache-only")
        case .cacheFirst:
            return withinRouteMaxAge ? .answerFromCache(detail: "cache-first") : .forward(reason: .stale, timeout: nil)
        case .staleWhileRevalidate:
            return withinRouteMaxAge
                ? .answerAndRefresh(detail: "stale-while-revalidate") : .forward(reason: .stale, timeout: nil)
        case .networkOnly:
            return .forward(reason: .request, timeout: nil)
        case .networkFirst:
            if request.onlyIfCached {
                return .answerFromCache(detail: "only-if-cached")
            }
            return .forward(reason: .request, timeout: context.networkTimeout)
        case .http:
            return self.decideHTTP(context, stored: stored, withinRouteMaxAge: withinRouteMaxAge, now: now)
        }
    }

    /// RFC 9111 section 4 (with RFC 5861 and RFC 8246) for a private cache.
    private static func decideHTTP(_ context: Context, stored freshness: ResponseFreshness, withinRouteMaxAge: Bool, now: Date)
        -> CacheDecision
    {
        let request = context.request
        let age = freshness.age(now: now)
        let fresh = freshness.isFresh(now: now) && withinRouteMaxAge
        let staleness = freshness.staleness(now: now)

        // A reload (max-age=0) of an immutable response that is still fresh needs no validation;
        // a forced reload (no-cache) still does.
        let reloadOfImmutable = freshness.immutable && fresh && request.maxAge == 0 && !request.noCache
        var usable = fresh
        var detail: String?
        if !reloadOfImmutable {
            if request.noCache {
                usable = false
            }
            if let maxAge = request.maxAge, age > TimeInterval(maxAge) {
                usable = false
            }
        }
        if usable, let minFresh = request.minFresh, freshness.lifetime - age < TimeInterval(minFresh) {
            usable = false
        }
        if !fresh, !request.noCache, request.maxAge == nil, let maxStale = request.maxStale,
            !freshness.mustRevalidate, !freshness.noCache, withinRouteMaxAge
        {
            if let limit = maxStale {
                usable = staleness <= TimeInterval(limit)
            } else {
                usable = true
            }
            detail = usable ? "max-stale" : nil
        }
        if usable {
            return .answerFromCache(detail: detail)
        }
        if request.onlyIfCached {
            return .gatewayTimeout(detail: "only-if-cached")
        }
        let reason: CacheStatus.ForwardReason = fresh ? .request : .stale
        if !fresh, !request.noCache, request.maxAge == nil, !freshness.mustRevalidate, !freshness.noCache,
            let window = freshness.staleWhileRevalidate, staleness <= window, withinRouteMaxAge
        {
            return .answerAndRefresh(detail: "stale-while-revalidate")
        }
        return .forward(reason: reason, timeout: nil)
    }

    /// Whether a stored response may answer when the origin cannot (unreachable, hung past the
    /// timeout, backing off, or the proxy offline). RFC 9111 section 4.2.4 allows a fresh or plainly
    /// stale copy, and `stale-if-error` (RFC 5861) a `must-revalidate` or `no-cache` one within its
    /// window; precached entries are an out-of-band contract and always may. Beyond that the
    /// ``OfflineRule`` decides: relaxed (the default) serves the copy anyway and says so, strict
    /// does not. A temporary redirect kept for disconnected use only (``DisconnectedRedirect``),
    /// which RFC 9111 would not have stored, is such a copy (`status-302`) unless precached; so
    /// is a page kept against its `no-store` (``KeptNoStore``), which says so (``DisconnectedUse/kept``).
    public static func disconnectedUse(_ freshness: ResponseFreshness, precached: Bool, rule: OfflineRule, now: Date)
        -> DisconnectedUse
    {
        if precached {
            return .allowed
        }
        if freshness.keptNoStore {
            return rule == .strict ? .forbidden(directive: "no-store") : .kept
        }
        if let status = freshness.disconnectedOnlyRedirect {
            let directive = "status-\(status)"
            return rule == .strict ? .forbidden(directive: directive) : .relaxed(directive: directive)
        }
        if freshness.isFresh(now: now) {
            return .allowed
        }
        if let window = freshness.staleIfError, freshness.staleness(now: now) <= window {
            return .allowed
        }
        guard freshness.mustRevalidate || freshness.noCache else { return .allowed }
        let directive = freshness.mustRevalidate ? "must-revalidate" : "no-cache"
        return rule == .strict ? .forbidden(directive: directive) : .relaxed(directive: directive)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: TimeInterval {
        let (seconds, attoseconds) = self.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
