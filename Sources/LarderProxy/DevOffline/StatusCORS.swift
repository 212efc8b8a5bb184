import LarderHTTP

/// Which web pages may read `/dev/offline.json`, so an app can show its own offline state: pages on
/// the origins of the precached games and pages, and the origins the config file's `statusOrigins`
/// names. Such a request gets `Access-Control-Allow-Origin` with its own `Origin` (never `*`, and
/// never on the controls, which stay same-origin only).
struct StatusCORS: Sendable {
    /// The allowed origins, normalised (`HTTPURL.canonicalOrigin(_:)`).
    let allowed: Set<String>

    /// Allows the origins of `report`'s games and pages, and `configured` (normalised already).
    init(configured: [String], report: OfflineReport) {
        var allowed = Set(configured)
        for url in report.games.map(\.root) + report.pages.map(\.url) {
            if let parsed = try? HTTPURL(parsing: url) { allowed.insert(parsed.origin) }
        }
        self.allowed = allowed
    }

    /// The `Access-Control-Allow-Origin` value for a request whose `Origin` is `origin`: that origin
    /// as the browser sent it, when allowed; else nil.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, let normalised = HTTPURL.canonicalOrigin(origin), self.allowed.contains(normalised) else { return nil }
        return origin
    }
}
