import LarderHTTP
import LarderPrecache
import LarderStore
import Testing

struct OfflineMetaManifestTests {
    struct ResolutionCase: Sendable, CustomTestStringConvertible {
        var root: String
        var entry: String
        var expected: String
        var testDescription: String { "\(self.entry) under \(self.root)" }
    }

    static let resolutionCases: [ResolutionCase] = [
        // Paths are relative to the root's parent, whether or not the root ends in "/".
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/a.js",
            expected: "https://cdn.example/games/flipart/a.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart/",
            entry: "flipart/a.js",
            expected: "https://cdn.example/games/flipart/a.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/assets/index-Bx12.js",
            expected: "https://cdn.example/games/flipart/assets/index-Bx12.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "./flipart/a.js",
            expected: "https://cdn.example/games/flipart/a.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/../shared/b.js",
            expected: "https://cdn.example/games/shared/b.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "../top.js",
            expected: "https://cdn.example/top.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "../../../clamped.js",
            expected: "https://cdn.example/clamped.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "/abs/c.js",
            expected: "https://cdn.example/abs/c.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "https://cdn.example/other/d.js",
            expected: "https://cdn.example/other/d.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "//cdn.example/e.js",
            expected: "https://cdn.example/e.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "?q=1",
            expected: "https://cdn.example/games/?q=1"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/q.js?v=2&x=y",
            expected: "https://cdn.example/games/flipart/q.js?v=2&x=y"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/a b.png",
            expected: "https://cdn.example/games/flipart/a%20b.png"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart\\win.js",
            expected: "https://cdn.example/games/flipart/win.js"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "flipart/café.png",
            expected: "https://cdn.example/games/flipart/caf%C3%A9.png"
        ),
        ResolutionCase(
            root: "https://cdn.example/games/flipart",
            entry: "  flipart/trimmed.js ",
            expected: "https://cdn.example/games/flipart/trimmed.js"
        ),
        // A root at the top of its host.
        ResolutionCase(
            root: "https://cdn.example/flipart",
            entry: "flipart/a.js",
            expected: "https://cdn.example/flipart/a.js"
        ),
        // Ports are kept.
        ResolutionCase(
            root: "http://127.0.0.1:9000/games/flipart",
            entry: "flipart/a.js",
            expected: "http://127.0.0.1:9000/games/flipart/a.js"
        ),
    ]

    @Test(arguments: resolutionCases)
    func resolvesAgainstTheRootsParent(_ testCase: ResolutionCase) throws {
        let root = try httpURL(testCase.root)
        let manifestURL = "\(root.scheme)://\(root.authority)/games/flipart/offline.meta.json"
        let json = "{\"files\": [\(String(reflecting: testCase.entry))]}"
        let manifest = try parseManifest(json, manifestURL: manifestURL, root: testCase.root)
        #expect(manifest.refused == [])
        #expect(manifest.files.map(\.url.absoluteString) == [testCase.expected])
        #expect(manifest.format == .offlineMeta)
        #expect(manifest.files.first?.revision == nil)
    }

    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var entry: String
        var reason: String
        var allowedCrossOrigin: String?
        var testDescription: String { self.entry }
    }

    static let refusalCases: [RefusalCase] = [
        RefusalCase(
            entry: "https://other.example/x.js",
            reason: "another origin",
            allowedCrossOrigin: "https://other.example/x.js"
        ),
        RefusalCase(
            entry: "//other.example/x.js",
            reason: "another origin",
            allowedCrossOrigin: "https://other.example/x.js"
        ),
        RefusalCase(
            entry: "http://cdn.example/x.js",
            reason: "another origin",
            allowedCrossOrigin: "http://cdn.example/x.js"
        ),
        RefusalCase(
            entry: "https://cdn.example:8443/x.js",
            reason: "another origin",
            allowedCrossOrigin: "https://cdn.example:8443/x.js"
        ),
        RefusalCase(entry: "data:text/plain,hi", reason: "it is not an http(s) URL (scheme \"data\")"),
        RefusalCase(entry: "javascript:alert(1)", reason: "scheme \"javascript\""),
        RefusalCase(entry: "ftp://cdn.example/x.js", reason: "scheme \"ftp\""),
        RefusalCase(entry: "", reason: "the entry is empty"),
        RefusalCase(entry: "https://user@cdn.example/x.js", reason: "user information"),
    ]

    @Test(arguments: refusalCases)
    func refusesEntriesItMustNotFetch(_ testCase: RefusalCase) throws {
        let json = "{\"files\": [\"flipart/ok.js\", \(String(reflecting: testCase.entry))]}"
        let manifest = try parseManifest(json)
        #expect(manifest.files.map(\.url.absoluteString) == ["https://cdn.example/games/flipart/ok.js"])
        let refused = try #require(manifest.refused.first)
        #expect(manifest.refused.count == 1)
        #expect(refused.reason.contains(testCase.reason), "\(refused.reason)")

        let allowing = try parseManifest(json, allowCrossOrigin: true)
        if let allowed = testCase.allowedCrossOrigin {
            #expect(allowing.refused == [])
            #expect(allowing.files.map(\.url.absoluteString) == ["https://cdn.example/games/flipart/ok.js", allowed])
        } else {
            #expect(allowing.refused.count == 1)
        }
    }

    @Test func crossOriginRefusalNamesBothOrigins() throws {
        let manifest = try parseManifest(#"{"files": ["https://evil.example:444/x.js"]}"#)
        #expect(
            manifest.refused == [
                RefusedEntry(
                    url: "https://evil.example:444/x.js",
                    reason:
                        "it is on https://evil.example:444, another origin than the manifest (https://cdn.example); "
                        + "cross-origin entries are not allowed"
                )
            ]
        )
    }

    @Test func controlCharactersAreRefusedNotFatal() throws {
        let manifest = try parseManifest(#"{"files": ["flipart/bad\u0001.js", "flipart/good.js"]}"#)
        #expect(manifest.files.map(\.url.absoluteString) == ["https://cdn.example/games/flipart/good.js"])
        #expect(manifest.refused.first?.reason.contains("control character") == true)
    }

    @Test(arguments: [
        (#"{"files": [], "skip": true}"#, true),
        (#"{"files": [], "skip": false}"#, false),
        (#"{"files": []}"#, false),
        (#"{"files": [], "skip": null}"#, false),
    ])
    func skip(_ json: String, _ expected: Bool) throws {
        #expect(try parseManifest(json).skip == expected)
    }

    @Test func skipTrueStillListsTheFiles() throws {
        let manifest = try parseManifest(#"{"files": ["flipart/a.js"], "skip": true}"#)
        #expect(manifest.skip)
        #expect(manifest.files.count == 1)
    }

    @Test(arguments: [
        (#"{"files": [], "skip": "yes"}"#, "skip is a string, not a boolean"),
        (#"{"files": [], "skip": 1}"#, "skip is a number, not a boolean"),
        (#"{"files": "flipart/a.js"}"#, "files is a string, not an array"),
        (#"{"files": {"a": "flipart/a.js"}}"#, "files is an object, not an array"),
        (#"{"files": null}"#, "files is null, not an array"),
        (#"{"files": ["a", "b", "c", 4]}"#, "files[3] is a number, not a string"),
        (#"{"files": ["a", null]}"#, "files[1] is null, not a string"),
        (#"{"files": [["a"]]}"#, "files[0] is an array, not a string"),
        (#"{"files": [true]}"#, "files[0] is a boolean, not a string"),
        (#"{"skip": false}"#, "no files array"),
        (#"{}"#, "no files array"),
        (#""flipart/a.js""#, "the document is a string, not a JSON object or array"),
        (#"42"#, "the document is a number, not a JSON object or array"),
    ])
    func structureErrors(_ json: String, _ expected: String) throws {
        let problem = try #require(try manifestProblem(json))
        #expect(problem.hasPrefix(expected), "\(problem)")
    }

    @Test func unknownFieldsAreIgnored() throws {
        let manifest = try parseManifest(
            #"{"version": 3, "files": ["flipart/a.js"], "extra": {"nested": [1, true, null]}, "skip": false, "hash": "abc"}"#
        )
        #expect(manifest.files.map(\.url.absoluteString) == ["https://cdn.example/games/flipart/a.js"])
        #expect(!manifest.skip)
    }

    @Test func duplicatesAreRemovedKeepingTheFirstAndTheOrder() throws {
        let manifest = try parseManifest(
            #"{"files": ["flipart/b.js", "flipart/a.js", "./flipart/b.js", "flipart/x/../a.js", "flipart/c.js", "flipart/b.js"]}"#
        )
        #expect(
            manifest.files.map(\.key.rawValue) == [
                "https://cdn.example/games/flipart/b.js",
                "https://cdn.example/games/flipart/a.js",
                "https://cdn.example/games/flipart/c.js",
            ]
        )
    }

    @Test func fragmentsAndTrackingParametersCollapseToOneKey() throws {
        let manifest = try parseManifest(
            #"{"files": ["flipart/a.js#first", "flipart/a.js", "flipart/a.js?utm_source=feed", "flipart/%61.js", "flipart/a.js?fbclid=1#x"]}"#
        )
        #expect(manifest.files.count == 1)
        let file = try #require(manifest.files.first)
        #expect(file.key.rawValue == "https://cdn.example/games/flipart/a.js")
        #expect(file.url.path == "/games/flipart/a.js")
    }

    @Test func keysUseTheGivenQueryFilter() throws {
        let manifest = try PrecacheManifest.parse(
            status: 200,
            contentType: "application/json",
            body: Array(#"{"files": ["flipart/a.js?utm_source=x", "flipart/a.js?cb=1"]}"#.utf8),
            manifestURL: try httpURL("https://cdn.example/games/flipart/offline.meta.json"),
            root: try httpURL("https://cdn.example/games/flipart"),
            allowCrossOrigin: false,
            queryFilter: QueryParameterFilter(patterns: ["cb"])
        )
        #expect(
            manifest.files.map(\.key.rawValue) == [
                "https://cdn.example/games/flipart/a.js?utm_source=x",
                "https://cdn.example/games/flipart/a.js",
            ]
        )
    }

    @Test func revisionIsTheHashOfTheSortedKeysAndRevisions() throws {
        let one = try parseManifest(#"{"files": ["flipart/a.js"]}"#)
        #expect(one.revision == "c0394b7924ce8533f8028f4b967829441b864e2f65e00110038881ce2c33ce69")

        let empty = try parseManifest(#"{"files": []}"#)
        #expect(empty.revision == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

        let forwards = try parseManifest(#"{"files": ["flipart/a.js", "flipart/b.js"]}"#)
        let backwards = try parseManifest(#"{"files": ["flipart/b.js", "flipart/a.js", "flipart/a.js"]}"#)
        let other = try parseManifest(#"{"files": ["flipart/a.js", "flipart/c.js"]}"#)
        #expect(forwards.revision == backwards.revision)
        #expect(forwards.revision != other.revision)
        #expect(forwards.revision.count == 64)
    }

    @Test func revisionIncludesWorkboxRevisions() throws {
        let manifest = try parseManifest(
            #"[{"url": "b.js", "revision": "7"}, "a.js"]"#,
            manifestURL: "https://cdn.example/games/flipart/sw-manifest.json"
        )
        #expect(manifest.revision == "11134d38ad6f1a6aa071aa57bea838b55a6b30e975cc02c569ee716f74a482bd")
    }
}
