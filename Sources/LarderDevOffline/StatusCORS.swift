import LarderHTTP

/// Which web pages may read `/dev/offline.json`, so an app can show its own offline state: pages on
/// the origins the config file's `statusOrigins` names, and no others. Not the origins of precached
/// games or pages: any page may queue a precache of its own origin (`POST /dev/offline/precache`),
/// and the report holds the user's recent requests across every site. Such a request gets
/// `Access-Control-Allow-Origin` with its own `Origin` (never `*`, and never on the controls, which
/// stay same-origin only).
struct StatusCORS: Sendable {
    /// The allowed origins, normalised (`HTTPURL.canonicalOrigin(_:)`).
    let allowed: Set<String>

    /// Allows `configured` (normalised already).
    init(configured: [String]) {
        self.allowed = Set(configured)
    }

    /// The `Access-Control-Allow-Origin` value for a request whose `Origin` is `origin`: that origin
    /// as the browser sent it, when allowed; else nil.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, let normalised = HTTPURL.canonicalOrigin(origin), self.allowed.contains(normalised) else { return nil }
        return origin
    }
}
