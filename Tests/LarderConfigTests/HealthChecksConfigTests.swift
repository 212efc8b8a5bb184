import LarderConfig
import LarderHTTP
import Testing

@Suite("Config file: healthChecks")
struct HealthChecksConfigTests {
    @Test("a list of names and paths replaces the defaults; an empty list turns them off; unset keeps them")
    func parsed() throws {
        let file = try LarderConfigFile(parsing: Array(#"{"healthChecks": ["status", "/internal/*/up"]}"#.utf8), file: "larder.json")
        #expect(file.healthChecks == HealthChecks(patterns: ["status", "/internal/*/up"]))
        let none = try LarderConfigFile(parsing: Array(#"{"healthChecks": []}"#.utf8), file: "larder.json")
        #expect(none.healthChecks == HealthChecks.none)
        #expect(LarderConfigFile().healthChecks == nil)
    }

    @Test(
        "anything else is refused with file, line and key",
        arguments: [
            (
                #"{"healthChecks": "healthz"}"#,
                #"larder.json:1: healthChecks: expected an array of health-check names or paths but found "healthz""#
            ),
            (
                "{\n  \"healthChecks\": [\n    \"api/health\"\n  ]\n}",
                #"larder.json:3: healthChecks[0]: expected a health check's path name such as "healthz", or a path such as "/api/status" (* for any characters) but found "api/health""#
            ),
            (
                #"{"healthChecks": [7]}"#,
                #"larder.json:1: healthChecks[0]: expected a health check's path name such as "healthz", or a path such as "/api/status" (* for any characters) but found 7"#
            ),
        ]
    )
    func refused(json: String, message: String) {
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description == message)
        }
    }
}
