import Foundation

/// Freshness and age of a stored response (RFC 9111 sections 4.2.1 to 4.2.3), as a private cache.
public struct ResponseFreshness: Sendable, Hashable {
    /// How long the response stays fresh after it was generated, in seconds.
    public let lifetime: TimeInterval
    /// The response's age when it arrived, corrected for transit (`corrected_initial_age`).
    public let initialAge: TimeInterval
    /// When the response arrived (`response_time`).
    public let responseTime: Date
    /// Whether the response forbids being served stale (`must-revalidate`).
    public let mustRevalidate: Bool
    /// Whether the response may not be used without validation (an unqualified `no-cache`).
    public let noCache: Bool
    /// Whether the response says it will not change while fresh (`immutable`, RFC 8246).
    public let immutable: Bool
    /// How long after it goes stale it may be served while revalidated in the background
    /// (`stale-while-revalidate`, RFC 5861 section 3), or nil.
    public let staleWhileRevalidate: TimeInterval?
    /// How long after it goes stale it may be served when upstream fails (`stale-if-error`,
    /// RFC 5861 section 4), or nil.
    public let staleIfError: TimeInterval?
    /// The status of a temporary redirect kept for disconnected use only (``DisconnectedRedirect``),
    /// else nil: such a copy never answers while the origin answers.
    public let disconnectedOnlyRedirect: Int?
    /// Whether this is a page kept against its `no-store` because the user chose its site
    /// (``KeptNoStore``): it answers only while the origin cannot. Set by whoever knows the entry
    /// (``KeptNoStore/isKept(headers:varyRequestHeaders:precached:keyed:)``); the headers alone
    /// do not tell a kept copy from a precached one.
    public var keptNoStore = false

    /// Statuses a cache may give a heuristic lifetime (RFC 9110 section 15.1).
    public static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Computes freshness from a stored response's status and headers.
    /// - Parameter header: all values of a header field, by lower-case name.
    public init(status: Int, header: (String) -> [String], requestTime: Date, responseTime: Date) {
        let cacheControl = CacheControlDirectives(header("cache-control"))
        let date = header("date").first.flatMap(HTTPDate.parse)
        let dateValue = date ?? responseTime

        // RFC 9111 4.2.1: max-age first (s-maxage is for shared caches), then Expires, then heuristics.
        // A plain no-cache response may never be used without validation: it is never fresh.
        if cacheControl.contains("no-cache") && cacheControl.argument("no-cache") == nil {
            self.lifetime = 0
        } else if let maxAge = cacheControl.seconds("max-age") {
            switch maxAge {
            case .value(let seconds): self.lifetime = TimeInterval(seconds)
            case .invalid: self.lifetime = 0
            }
        } else if let expiresValue = header("expires").first {
            // An invalid Expires (including "0") means already expired.
            if header("expires").count == 1, let expires = HTTPDate.parse(expiresValue) {
                self.lifetime = max(0, expires.timeIntervalSince(dateValue))
            } else {
                self.lifetime = 0
            }
        } else if Self.heuristicallyCacheableStatuses.contains(status) || cacheControl.contains("public"),
            let lastModified = header("last-modified").first.flatMap(HTTPDate.parse)
        {
            // RFC 9111 4.2.2: a typical heuristic is 10% of the time since Last-Modified.
            self.lifetime = max(0, dateValue.timeIntervalSince(lastModified) * 0.1)
        } else {
            self.lifetime = 0
        }

        // RFC 9111 4.2.3.
        let ageValue = header("age").first.flatMap(Self.ageSeconds).map(TimeInterval.init) ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        self.initialAge = max(apparentAge, max(0, ageValue) + responseDelay)
        self.responseTime = responseTime
        self.mustRevalidate = cacheControl.contains("must-revalidate")
        self.noCache = cacheControl.contains("no-cache") && cacheControl.argument("no-cache") == nil
        self.immutable = cacheControl.contains("immutable")
        self.staleWhileRevalidate = Self.window(cacheControl.seconds("stale-while-revalidate"))
        self.staleIfError = Self.window(cacheControl.seconds("stale-if-error"))
        self.disconnectedOnlyRedirect =
            DisconnectedRedirect.applies(status: status, cacheControl: cacheControl, expires: header("expires")) ? status : nil
    }

    /// The seconds an `Age` field line says (RFC 9111 section 5.1): delta-seconds, digits only, or
    /// nil (ignored). Of a list (`7200, 0`) the first member counts, as of several lines the first
    /// line; a parameter after `;` is not part of the number.
    static func ageSeconds(_ fieldValue: String) -> Int? {
        let member = fieldValue.prefix { $0 != "," }
        return CacheControlDirectives.deltaSeconds(member.prefix { $0 != ";" }.trimmingWhitespace())
    }

    /// An RFC 5861 window: an invalid argument makes the directive void.
    private static func window(_ seconds: CacheControlDirectives.DeltaSeconds?) -> TimeInterval? {
        guard case .value(let value) = seconds else { return nil }
        return TimeInterval(value)
    }

    /// The response's age at `now` in seconds, unrounded.
    public func age(now: Date) -> TimeInterval {
        self.initialAge + max(0, now.timeIntervalSince(self.responseTime))
    }

    /// How long the response has been stale at `now` (negative while fresh).
    public func staleness(now: Date) -> TimeInterval {
        self.age(now: now) - self.lifetime
    }

    /// The response's current age (`current_age`), in whole seconds as the `Age` header carries it.
    public func currentAge(now: Date) -> Int {
        Int(min(self.age(now: now), 2_147_483_648).rounded(.down))
    }

    /// Whether the response is still fresh at `now`.
    public func isFresh(now: Date) -> Bool {
        self.lifetime > self.age(now: now)
    }
}
