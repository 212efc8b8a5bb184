extension OfflineMatch {
    /// The endpoint `url` asks for, as this match sees it: `url` without its fragment and without
    /// the query parameters that do not tell one answer from another (``isCacheBuster(name:value:)``
    /// for ``ignoreCacheBusters``, the whole query for ``ignoreQuery``, none for ``exact``), the
    /// others kept in their order. /dev/offline lists an endpoint's offline misses as one
    /// (docs/SERVING.md, "Offline misses"): `/api/feed?_=1795492696035` and
    /// `/api/feed?_=1795492699999` are one row, `/api/feed?page=2` another.
    public func endpoint(of url: HTTPURL) -> HTTPURL {
        var endpoint = url
        endpoint.fragment = nil
        guard let query = url.query else { return endpoint }
        switch self {
        case .exact:
            return endpoint
        case .ignoreQuery:
            endpoint.query = nil
        case .ignoreCacheBusters:
            let kept = query.split(separator: "&", omittingEmptySubsequences: true).filter { parameter in
                let name = parameter.prefix { $0 != "=" }
                let value = name.endIndex == parameter.endIndex ? nil : parameter[parameter.index(after: name.endIndex)...]
                return !Self.isCacheBuster(name: name, value: value)
            }
            endpoint.query = kept.isEmpty ? nil : kept.joined(separator: "&")
        }
        return endpoint
    }
}
