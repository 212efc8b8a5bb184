/// Which stored responses may stand in for a request that has none of its own, while the origin
/// cannot answer (a route's `offlineMatch` setting): apps add a new cache-busting number to every
/// API call (`/api/settings?1795492696035`), so the exact key never repeats.
///
/// Only responses for the same origin and path are candidates (``CacheKey/base``), and only when
/// the origin cannot answer; online, every request has its own key as before.
public enum OfflineMatch: String, Sendable, Hashable, CaseIterable {
    /// Only the request's own key.
    case exact
    /// Also a response whose query differs only in cache-busting parameters (see
    /// ``isCacheBuster(name:value:)``). The default.
    case ignoreCacheBusters = "ignore-cache-busters"
    /// Also a response with any query (Workbox's `ignoreSearch`).
    case ignoreQuery = "ignore-query"

    /// Whether the response stored under `stored` may stand in for a request for `requested`
    /// (variant suffixes ignored). The exact key itself is the ordinary lookup's, not a stand-in.
    /// A keyed request's answer (``CacheKey/isKeyed``: a POST's, say) never stands in for a GET,
    /// nor anything for a keyed request: another body asks another question.
    public func accepts(_ stored: CacheKey, for requested: CacheKey) -> Bool {
        guard self != .exact, !stored.isKeyed, !requested.isKeyed, stored.base == requested.base else { return false }
        switch self {
        case .exact:
            return false
        case .ignoreQuery:
            return true
        case .ignoreCacheBusters:
            return Self.meaningfulParameters(requested) == Self.meaningfulParameters(stored)
        }
    }

    /// Whether a query parameter only defeats caches: it has no value (`?1795492696035`,
    /// `?nocache`), or its value is a timestamp in seconds or milliseconds or a random number
    /// (``ChangingValue``, a date excepted: `?day=2026-11-28` asks for a day), whatever its name
    /// (`_=`, `v=`, `t=`, `ts=`...). A small number (`v=2`, `page=3`), an id, a word or a
    /// coordinate is meaningful.
    public static func isCacheBuster(name: Substring, value: Substring?) -> Bool {
        guard let value else { return true }
        switch ChangingValue(value) {
        case .epochSeconds, .epochMilliseconds, .random: return true
        case .isoDate, nil: return false
        }
    }

    /// The key's query parameters that are not cache-busters, sorted (their order carries no meaning here).
    private static func meaningfulParameters(_ key: CacheKey) -> [Substring] {
        key.queryParameters.filter { parameter in
            let name = parameter.prefix { $0 != "=" }
            let value = name.endIndex == parameter.endIndex ? nil : parameter[parameter.index(after: name.endIndex)...]
            return !Self.isCacheBuster(name: name, value: value)
        }.sorted()
    }
}

extension CacheKey {
    /// The key without its query and variant suffix: scheme, authority and path
    /// (`http://host/api/settings`). Normalisation escapes `?` and `#` in paths, so the first of
    /// them ends the base.
    public var base: Substring {
        self.rawValue.prefix { $0 != "?" && $0 != "#" }
    }

    /// The query's parameters as stored (normalised, in order), without the variant suffix.
    public var queryParameters: [Substring] {
        let raw = self.rawValue
        guard let question = raw.firstIndex(of: "?") else { return [] }
        let query = raw[raw.index(after: question)...].prefix { $0 != "#" }
        return query.split(separator: "&", omittingEmptySubsequences: false)
    }
}
