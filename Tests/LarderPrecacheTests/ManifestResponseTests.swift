import LarderHTTP
import LarderPrecache
import LarderStore
import Testing

/// Checks on the response as a whole: status, content type, size, JSON syntax, entry count.
struct ManifestResponseTests {
    static let validJSON = #"{"files": ["flipart/a.js"]}"#

    @Test(arguments: [404, 500, 204, 206, 301, 304])
    func onlyStatus200IsAccepted(_ status: Int) throws {
        do {
            _ = try parseManifest(Self.validJSON, status: status)
            Issue.record("status \(status) was accepted")
        } catch let error as ManifestError {
            #expect(error.problem == "answered HTTP \(status)")
            #expect(error.manifestURL.absoluteString == "https://cdn.example/games/flipart/offline.meta.json")
            #expect(error.description == "https://cdn.example/games/flipart/offline.meta.json: answered HTTP \(status)")
        }
    }

    @Test(arguments: [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON;charset=UTF-8",
        " application/json ",
        "text/json",
        "application/manifest+json",
        "application/vnd.api+json; ext=x",
    ])
    func jsonContentTypesAreAccepted(_ contentType: String) throws {
        #expect(JSONMediaType.names(contentType))
        let manifest = try parseManifest(Self.validJSON, contentType: contentType)
        #expect(manifest.files.count == 1)
    }

    @Test(arguments: [
        ("text/plain", "served as text/plain, not JSON"),
        ("text/html; charset=utf-8", "served as text/html, not JSON"),
        ("application/javascript", "served as application/javascript, not JSON"),
        ("application/jsonp", "served as application/jsonp, not JSON"),
        ("application/+json", "served as application/+json, not JSON"),
        ("json", "served as json, not JSON"),
        ("", "served with an empty Content-Type, not as JSON"),
    ])
    func otherContentTypesAreRefused(_ contentType: String, _ expected: String) throws {
        #expect(!JSONMediaType.names(contentType))
        #expect(try manifestProblem(Self.validJSON, contentType: contentType) == expected)
    }

    @Test func aMissingContentTypeIsRefused() throws {
        #expect(try manifestProblem(Self.validJSON, contentType: nil) == "served without a Content-Type, not as JSON")
    }

    @Test func theStatusIsCheckedBeforeTheContentType() throws {
        #expect(
            try manifestProblem("<html>Not found</html>", status: 404, contentType: "text/html") == "answered HTTP 404"
        )
    }

    @Test func bodiesOverEightMebibytesAreRefused() throws {
        let limit = PrecacheManifest.maximumBodySize
        #expect(limit == 8 * 1024 * 1024)
        let prefix = #"{"files": []}"#
        let atLimit = prefix + String(repeating: " ", count: limit - prefix.utf8.count)
        #expect(try parseManifest(atLimit).files.isEmpty)

        let overLimit = atLimit + " "
        #expect(try manifestProblem(overLimit) == "is 8388609 bytes long; the limit is 8388608 (8 MiB)")
    }

    @Test(arguments: [
        (#"{"files": ["a.js",]}"#, "line 1, column 19 (byte offset 18): unexpected \"]\"; expected a value"),
        (
            "{\n  \"files\": [\n    \"a.js\"\n    \"b.js\"\n  ]\n}",
            "line 4, column 5 (byte offset 30): unexpected \"\"\"; expected \",\" or \"]\" after an array element"
        ),
        ("", "line 1, column 1 (byte offset 0): the document is empty"),
        (
            #"{"files": ["a.js"]"#,
            "line 1, column 19 (byte offset 18): unexpected end of the document; expected \",\" or \"}\" after an object member"
        ),
        ("<!doctype html>", "line 1, column 1 (byte offset 0): unexpected \"<\"; expected a value"),
        (
            #"{files: []}"#,
            "line 1, column 2 (byte offset 1): unexpected \"f\"; expected a member name in double quotes"
        ),
    ])
    func invalidJSONNamesThePosition(_ json: String, _ position: String) throws {
        #expect(try manifestProblem(json) == "is not valid JSON: \(position)")
    }

    @Test func moreThanOneHundredThousandEntriesAreRefused() throws {
        let limit = PrecacheManifest.maximumEntryCount
        #expect(limit == 100_000)
        func offlineMeta(_ count: Int) -> String {
            "{\"files\": [" + Array(repeating: "\"flipart/a.js\"", count: count).joined(separator: ",") + "]}"
        }
        func workbox(_ count: Int) -> String {
            "[" + Array(repeating: "\"a.js\"", count: count).joined(separator: ",") + "]"
        }

        #expect(try parseManifest(offlineMeta(limit)).files.count == 1)
        #expect(try manifestProblem(offlineMeta(limit + 1)) == "it lists more than 100000 files, the limit")
        #expect(try manifestProblem(workbox(limit + 1)) == "it lists more than 100000 files, the limit")
    }
}
