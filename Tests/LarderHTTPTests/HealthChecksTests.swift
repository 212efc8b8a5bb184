import LarderHTTP
import Testing

/// The endpoints never answered from the cache while their origin cannot answer (docs/SERVING.md, "Health checks").
@Suite("Health checks: which endpoints report a server's health")
struct HealthChecksTests {
    @Test(
        "the common names by default, as the last segment of the path, whatever the case, query or trailing slash",
        arguments: [
            ("http://app.test/health", true),
            ("http://app.test/healthz", true),
            ("http://app.test/api/health", true),
            ("http://app.test/api/v2/healthcheck?verbose=1", true),
            ("http://app.test/health-check/", true),
            ("http://app.test/_health", true),
            ("http://app.test/livez", true),
            ("http://app.test/readyz", true),
            ("http://app.test/PING", true),
            ("http://app.test/heartbeat", true),
            ("http://app.test/.well-known/health", true),
            ("http://app.test/", false),
            ("http://app.test/health/report.pdf", false),
            ("http://app.test/healthy-recipes", false),
            ("http://app.test/api/pings", false),
            ("http://app.test/api/today?check=health", false),
        ]
    )
    func defaults(url: String, expected: Bool) throws {
        #expect(HealthChecks.default.matches(try HTTPURL(parsing: url)) == expected)
    }

    @Test(
        "a configured list: names and paths, * for any run of characters (within a segment for a name)",
        arguments: [
            ("/api/status", true),
            ("/API/Status/", true),
            ("/v1/api/status", false),
            ("/internal/db/status", true),
            ("/internal/db/cache/status", true),
            ("/health-probe", true),
            ("/api/health-probe", true),
            ("/healthz", false),
            ("/metrics/up", true),
            ("/up", true),
        ]
    )
    func configured(path: String, expected: Bool) {
        let checks = HealthChecks(patterns: ["/api/status", "/internal/*/status", "health-*", "up"])
        #expect(checks.matches(path: path) == expected)
    }

    @Test("none: nothing is a health check; what a pattern may be")
    func noneAndValid() {
        #expect(!HealthChecks.none.matches(path: "/healthz"))
        #expect(HealthChecks.isValid("healthz"))
        #expect(HealthChecks.isValid("/api/status"))
        #expect(!HealthChecks.isValid(""))
        #expect(!HealthChecks.isValid("/"))
        #expect(!HealthChecks.isValid("api/status"), "a name holds no /: a path starts with one")
    }
}
