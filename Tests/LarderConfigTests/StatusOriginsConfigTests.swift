import Testing

@testable import LarderConfig

@Suite("Config file: statusOrigins")
struct StatusOriginsConfigTests {
    @Test("origins are read normalised")
    func read() throws {
        let file = try LarderConfigFile(
            parsing: Array(#"{"statusOrigins": ["https://App.example:443", "http://127.0.0.1:8000"]}"#.utf8), file: "larder.json")
        #expect(file.statusOrigins == ["https://app.example", "http://127.0.0.1:8000"])
        #expect(LarderConfigFile().statusOrigins.isEmpty)
    }

    @Test(
        "anything but an array of origins is refused with file, line and key",
        arguments: [
            (
                #"{"statusOrigins": "https://app.example"}"#,
                #"larder.json:1: statusOrigins: expected an array of origins but found "https://app.example""#
            ),
            (
                "{\n  \"statusOrigins\": [\n    \"https://app.example/path\"\n  ]\n}",
                #"larder.json:3: statusOrigins[0]: expected an origin such as "https://app.example" (scheme, host and port only) but found "https://app.example/path""#
            ),
            (
                #"{"statusOrigins": ["*"]}"#,
                #"larder.json:1: statusOrigins[0]: expected an origin such as "https://app.example" (scheme, host and port only) but found "*""#
            ),
            (
                #"{"statusOrigins": [1]}"#,
                #"larder.json:1: statusOrigins[0]: expected an origin such as "https://app.example" (scheme, host and port only) but found 1"#
            ),
        ]
    )
    func refused(json: String, message: String) {
        #expect(throws: ConfigFileError.self) { try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json") }
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
        } catch {
            #expect(error.description == message)
        }
    }
}
