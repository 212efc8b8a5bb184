import LarderHTTP

/// The redirects a `page` line follows (docs/SERVING.md, "Redirects"): each step is stored under
/// its own URL, so the redirect and the page it leads to both answer offline. At most
/// ``maximumHops`` redirects; one back to a URL already in the chain is a loop.
struct RedirectChain {
    /// The statuses followed.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// The most redirects one page follows.
    static let maximumHops = 10

    /// Why a redirect cannot be followed, for the page's failure.
    struct Problem: Error, Equatable {
        var reason: String
    }

    /// The URLs fetched so far, the first the page's own.
    private(set) var urls: [HTTPURL]
    private var keys: Set<CacheKey>
    private let queryFilter: QueryParameterFilter

    /// A chain starting at `url`, whose steps are keyed under `queryFilter`.
    init(start url: HTTPURL, queryFilter: QueryParameterFilter) {
        self.urls = [url]
        self.keys = [CacheKey(url: url, filter: queryFilter)]
        self.queryFilter = queryFilter
    }

    /// The URL the last one's redirect leads to (its `Location`, resolved against it), added to
    /// the chain.
    mutating func follow(location: String?) throws(Problem) -> HTTPURL {
        let from = self.urls[self.urls.count - 1]
        guard let location = location?.trimmingWhitespace(), !location.isEmpty else {
            throw Problem(reason: "\(from.absoluteString) redirects without a Location")
        }
        guard let next = from.resolving(location) else {
            throw Problem(reason: "\(from.absoluteString) redirects to \(location), which is not an http or https URL")
        }
        guard self.urls.count <= Self.maximumHops else {
            throw Problem(reason: "more than \(Self.maximumHops) redirects (the last from \(from.absoluteString))")
        }
        guard self.keys.insert(CacheKey(url: next, filter: self.queryFilter)).inserted else {
            throw Problem(reason: "redirects in a loop: \(from.absoluteString) leads back to \(next.absoluteString)")
        }
        self.urls.append(next)
        return next
    }
}
