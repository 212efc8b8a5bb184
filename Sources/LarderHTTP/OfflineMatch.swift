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
    /// `?nocache`), or its value looks like a timestamp (10 digits of seconds or 13 of
    /// milliseconds, between 2000 and 2100) or a random number (`0.` and at least ten digits, as
    /// `Math.random()` gives), whatever its name (`_=`, `v=`, `t=`, `ts=`...). A small number
    /// (`v=2`, `page=3`), an id, a word or a coordinate is meaningful.
    public static func isCacheBuster(name: Substring, value: Substring?) -> Bool {
        guard let value else { return true }
        let bytes = value.utf8
        if bytes.count == 10 || bytes.count == 13, bytes.allSatisfy(Self.isDigit), let number = UInt64(value) {
            let seconds = bytes.count == 10 ? number : number / 1000
            return seconds >= 946_684_800 && seconds < 4_102_444_800
        }
        return value.hasPrefix("0.") && bytes.count >= 12 && bytes.dropFirst(2).allSatisfy(Self.isDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
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
