/// The endpoints that report whether a server is up (the config file's `healthChecks`): Larder
/// never answers them from the cache while their origin cannot answer, so an app that asks
/// `/healthz` while its server is down hears that it is down, and can show its own offline state
/// (docs/SERVING.md, "Health checks"). Online they are served as any request.
///
/// A pattern without a `/` is a name, compared with the last segment of the URL's path (a
/// trailing `/` ignored), so `healthz` is `/healthz`, `/api/healthz` and `/v2/healthz/`;
/// a pattern that starts with `/` is compared with the whole path. Either way the comparison
/// ignores case and the query, and a `*` stands for any run of characters (within the segment for
/// a name; across segments for a path): `health*` is `/healthcheck` and `/api/health-check`,
/// `/internal/*/status` is `/internal/db/status`.
public struct HealthChecks: Sendable, Hashable {
    /// The patterns, lower-cased.
    public let patterns: [String]

    /// A list of `patterns`.
    public init(patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }
    }

    /// The common health-check names, used when the config file names none.
    public static let `default` = HealthChecks(patterns: [
        "health", "healthz", "healthcheck", "health-check", "health_check", "_health", "_healthz", "healthy", "livez", "readyz",
        "livenessz", "readinessz", "ping", "heartbeat",
    ])

    /// None: every endpoint may be answered from the cache (`"healthChecks": []`).
    public static let none = HealthChecks(patterns: [])

    /// Whether a pattern is one Larder can use: not empty, and a name holds no `/`.
    public static func isValid(_ pattern: String) -> Bool {
        pattern.hasPrefix("/") ? pattern.count > 1 : !pattern.isEmpty && !pattern.contains("/")
    }

    /// Whether `url` is a health check.
    public func matches(_ url: HTTPURL) -> Bool {
        self.matches(path: url.path)
    }

    /// Whether a URL with `path` (no query) is a health check.
    public func matches(path: String) -> Bool {
        guard !self.patterns.isEmpty else { return false }
        var path = path.lowercased()
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path.isEmpty { path = "/" }
        let segment = path.split(separator: "/").last.map(String.init) ?? ""
        return self.patterns.contains { pattern in
            pattern.hasPrefix("/") ? Self.glob(path, pattern[...]) : Self.glob(segment, pattern[...])
        }
    }

    /// `text` against `pattern`, whole, each `*` any run of characters.
    private static func glob(_ text: String, _ pattern: Substring) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return text == pattern }
        var rest = Substring(text)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let start = rest.indices.first(where: { rest[$0...].hasPrefix(part) }) else { return false }
            rest = rest[start...].dropFirst(part.count)
        }
        let last = parts[parts.count - 1]
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}
