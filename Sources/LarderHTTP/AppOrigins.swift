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
/// A request is the app's when any of these holds:
/// - it has a `Referer` (a page asked for it);
/// - it is a navigation (`Sec-Fetch-Mode: navigate`): the user opened it;
/// - it has no `Sec-Fetch-Site` (curl, scripts, a client without Fetch Metadata): nothing says it
///   is the browser's, so it is not hidden;
/// - its origin is one an app's request went to before (a page loaded from it).
///
/// Anything else is the browser's own: Chromium sends its background requests without a
/// `Referer`, with `Sec-Fetch-Site: none` and a mode other than `navigate`.
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

    /// Who a request to `origin` is for, from its `Referer`, `Sec-Fetch-Site` and `Sec-Fetch-Mode`
    /// (the rule above); nothing is learned.
    public func initiator(origin: String, referer: String?, fetchSite: String?, fetchMode: String?) -> RequestInitiator {
        if referer?.isEmpty == false || fetchSite == nil || fetchMode?.lowercased() == "navigate" || self.contains(origin) {
            return .app
        }
        return .browser
    }

    /// Classifies a request to `origin` as ``initiator(origin:referer:fetchSite:fetchMode:)`` does and,
    /// when it is the app's, keeps its origin and its `Referer`'s origin as the app's.
    public mutating func classify(origin: String, referer: String?, fetchSite: String?, fetchMode: String?) -> RequestInitiator {
        let initiator = self.initiator(origin: origin, referer: referer, fetchSite: fetchSite, fetchMode: fetchMode)
        guard initiator == .app else { return initiator }
        self.keep(origin)
        if let referer, let page = try? HTTPURL(parsing: referer) {
            self.keep(page.origin)
        }
        return initiator
    }

    private mutating func keep(_ origin: String) {
        self.origins.insert((), for: origin)
    }
}
