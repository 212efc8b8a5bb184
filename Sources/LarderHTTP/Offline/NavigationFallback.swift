/// The app shell a navigation gets when nothing is stored for it and the origin cannot answer
/// (the config's `navigationFallback`, as Workbox's `NavigationRoute`): a single-page app answers
/// every in-app URL with one page, so `/settings` opened offline for the first time still renders.
public struct NavigationFallback: Sendable {
    /// The shell page, whose stored response answers.
    public var shell: HTTPURL
    /// URLs of the shell's origin it covers (globs as routes use them; empty: every URL).
    public var allow: [ExcludeGlob]
    /// URLs it never covers (API calls, files), checked after `allow`.
    public var deny: [ExcludeGlob]

    /// Creates a fallback for the shell's origin.
    public init(shell: HTTPURL, allow: [ExcludeGlob] = [], deny: [ExcludeGlob] = []) {
        self.shell = shell
        self.allow = allow
        self.deny = deny
    }

    /// Whether this fallback answers a navigation to `url` (cache key `key`): same origin as the
    /// shell, allowed, not denied.
    public func covers(_ url: HTTPURL, key: CacheKey) -> Bool {
        guard url.origin == self.shell.origin else { return false }
        if !self.allow.isEmpty, !self.allow.contains(where: { $0.matches(key) }) {
            return false
        }
        return !self.deny.contains { $0.matches(key) }
    }

    /// Whether a GET is a navigation (a page load, not a script's fetch): `Sec-Fetch-Mode: navigate`,
    /// or, from a client that does not send `Sec-Fetch-Mode`, an `Accept` that names `text/html`.
    public static func isNavigation(_ headers: some HeaderFields) -> Bool {
        if let mode = headers.first(name: "sec-fetch-mode") {
            return mode.trimmingWhitespace().lowercased() == "navigate"
        }
        return headers["accept"].contains { $0.lowercased().contains("text/html") }
    }
}
