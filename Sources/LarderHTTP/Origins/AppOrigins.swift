/// Who a request is for: the app the user opened, or the browser itself (its update, account and
/// safe-browsing services), whose misses /dev/offline shows apart (docs/SERVING.md, "The browser's
/// own requests").
public enum RequestInitiator: String, Sendable, Codable, Hashable {
    /// A page the user visited asked for it, or nothing says otherwise.
    case app
    /// The browser asked for it on its own.
    case browser
}

/// The origins the app's requests went to: the rule that tells the browser's own requests from
/// the app's, and what it learns from each request. Kept bounded: past ``capacity`` the origin
/// seen longest ago is forgotten.
///
/// In this order:
/// - a navigation (`Sec-Fetch-Mode: navigate`) is the app's: the user opened it;
/// - a request with a `Referer` is the app's: a page asked for it;
/// - a request to one of the browsers' own services (``BrowserServiceHosts``) is the browser's,
///   whatever origins the app used and whether or not it carries Fetch Metadata (Chromium's
///   updater sends none);
/// - a POST with `Sec-Fetch-Site: none` is the browser's background work: no page sent it, and
///   the user does not type a POST;
/// - a request without `Sec-Fetch-Site` (curl, an app's native code, a client without Fetch
///   Metadata) is the app's: nothing says it is the browser's, so it is not hidden;
/// - a request to an origin an app's request went to before (a page loaded from it) is the app's;
/// - anything else is the browser's own: Chromium sends its background requests without a
///   `Referer`, with `Sec-Fetch-Site: none` and a mode other than `navigate`.
///
/// The browsers' services are never kept as the app's origins, even when a page asked for one
/// (a sign-in button loading from `accounts.google.com`): the browser's own requests to them
/// would then count as the app's, and drive the badge.
public struct AppOrigins: Sendable {
    /// The origins, the one named longest ago forgotten first.
    private var origins: LeastRecentlyUsedCache<String, Void>

    /// Creates an empty set keeping at most `capacity` origins.
    public init(capacity: Int = 512) {
        precondition(capacity > 0, "an app origin set keeps at least one origin")
        self.origins = LeastRecentlyUsedCache(capacity: capacity)
    }

    /// How many origins are kept.
    public var capacity: Int {
        self.origins.capacity
    }

    /// Whether an app's request went to `origin` (among the ones kept).
    public func contains(_ origin: String) -> Bool {
        self.origins.contains(origin)
    }

    /// The origins kept, in no order.
    public var all: [String] {
        Array(self.origins.contents.keys)
    }

    /// The browsers' own services, never the app's.
    public var browserHosts: BrowserServiceHosts = .default

    /// Who a request of `method` to `origin` is for, from its `Referer`, `Sec-Fetch-Site` and
    /// `Sec-Fetch-Mode` (the rule above); nothing is learned.
    public func initiator(
        origin: String, referer: String?, fetchSite: String?, fetchMode: String?, method: String = "GET"
    ) -> RequestInitiator {
        if fetchMode?.lowercased() == "navigate" || referer?.isEmpty == false {
            return .app
        }
        if self.browserHosts.contains(origin: origin) {
            return .browser
        }
        if method.uppercased() == "POST", fetchSite?.lowercased() == "none" {
            return .browser
        }
        return fetchSite == nil || self.contains(origin) ? .app : .browser
    }

    /// Classifies a request as ``initiator(origin:referer:fetchSite:fetchMode:method:)`` does and,
    /// when it is the app's, keeps its origin and its `Referer`'s origin as the app's (never a
    /// browser's service).
    public mutating func classify(
        origin: String, referer: String?, fetchSite: String?, fetchMode: String?, method: String = "GET"
    ) -> RequestInitiator {
        let initiator = self.initiator(origin: origin, referer: referer, fetchSite: fetchSite, fetchMode: fetchMode, method: method)
        guard initiator == .app else { return initiator }
        self.keep(origin)
        if let referer, let page = try? HTTPURL(parsing: referer) {
            self.keep(page.origin)
        }
        return initiator
    }

    private mutating func keep(_ origin: String) {
        guard !self.browserHosts.contains(origin: origin) else { return }
        self.origins.insert((), for: origin)
    }
}
