import LarderPrecache
import LarderStore
import Testing

struct WorkboxAndViteManifestTests {
    static let workboxURL = "https://cdn.example/app/sw/precache-manifest.json"
    static let viteURL = "https://cdn.example/app/.vite/manifest.json"

    @Test func workboxStringsAndObjectsResolveAgainstTheManifestsFolder() throws {
        let manifest = try parseManifest(
            """
            [
              "index.html",
              {"url": "assets/a-1.js", "revision": null},
              {"url": "/root.css", "revision": "abc", "integrity": "sha384-x"},
              {"url": "index.html", "revision": "zzz"},
              "../up.png",
              {"url": "https://cdn.example/abs.js"}
            ]
            """,
            manifestURL: Self.workboxURL,
            root: "https://cdn.example/app/sw"
        )
        #expect(manifest.format == .workbox)
        #expect(!manifest.skip)
        #expect(manifest.refused == [])
        #expect(
            manifest.files.map(\.url.absoluteString) == [
                "https://cdn.example/app/sw/index.html",
                "https://cdn.example/app/sw/assets/a-1.js",
                "https://cdn.example/root.css",
                "https://cdn.example/app/up.png",
                "https://cdn.example/abs.js",
            ]
        )
        #expect(manifest.files.map(\.revision) == [nil, nil, "abc", nil, nil])
    }

    @Test func workboxRevisionsAreKeptPerFile() throws {
        let manifest = try parseManifest(
            #"[{"url": "a.html", "revision": "1f2e"}, {"url": "b.html", "revision": "9a9a"}]"#,
            manifestURL: Self.workboxURL
        )
        #expect(manifest.files.map(\.revision) == ["1f2e", "9a9a"])
        #expect(
            manifest.files.map(\.key.rawValue) == [
                "https://cdn.example/app/sw/a.html", "https://cdn.example/app/sw/b.html",
            ]
        )
    }

    @Test func anEmptyWorkboxArrayIsAnEmptyManifest() throws {
        let manifest = try parseManifest("[]", manifestURL: Self.workboxURL)
        #expect(manifest.format == .workbox)
        #expect(manifest.files.isEmpty)
    }

    @Test(arguments: [
        (#"["a.js", 5]"#, "[1] is a number, not a string or an object with a url"),
        (#"[null]"#, "[0] is null, not a string or an object with a url"),
        (#"[{"revision": "x"}]"#, "[0] has no url"),
        (#"[{"url": 5}]"#, "[0].url is a number, not a string"),
        (#"[{"url": "a.js", "revision": 5}]"#, "[0].revision is a number, not a string or null"),
    ])
    func workboxStructureErrors(_ json: String, _ expected: String) throws {
        #expect(try manifestProblem(json) == expected)
    }

    @Test func viteCollectsFileCSSAndAssetsOfEveryChunk() throws {
        let manifest = try parseManifest(
            """
            {
              "index.html": {
                "file": "assets/index-B1.js", "src": "index.html", "isEntry": true,
                "imports": ["_shared-C2.js"], "css": ["assets/index-D3.css"], "assets": ["assets/logo-E4.svg"]
              },
              "_shared-C2.js": {"file": "assets/shared-C2.js", "css": ["assets/index-D3.css"]},
              "src/font.woff2": {"file": "assets/font-F5.woff2", "src": "src/font.woff2"},
              "src/lazy.ts": {"file": "assets/lazy-G6.js", "isDynamicEntry": true, "assets": ["assets/logo-E4.svg", "assets/bg-H7.png"]}
            }
            """,
            manifestURL: Self.viteURL,
            root: "https://cdn.example/app"
        )
        #expect(manifest.format == .vite)
        #expect(manifest.refused == [])
        #expect(
            manifest.files.map(\.url.absoluteString) == [
                "https://cdn.example/app/assets/index-B1.js",
                "https://cdn.example/app/assets/index-D3.css",
                "https://cdn.example/app/assets/logo-E4.svg",
                "https://cdn.example/app/assets/shared-C2.js",
                "https://cdn.example/app/assets/font-F5.woff2",
                "https://cdn.example/app/assets/lazy-G6.js",
                "https://cdn.example/app/assets/bg-H7.png",
            ]
        )
        #expect(manifest.files.allSatisfy { $0.revision == nil })
    }

    @Test func aViteManifestOutsideDotViteResolvesAgainstItsFolder() throws {
        let manifest = try parseManifest(
            #"{"main.js": {"file": "assets/main-1.js"}}"#,
            manifestURL: "https://cdn.example/app/manifest.json",
            root: "https://cdn.example/app"
        )
        #expect(manifest.format == .vite)
        #expect(manifest.files.map(\.url.absoluteString) == ["https://cdn.example/app/assets/main-1.js"])
    }

    @Test(arguments: [
        (#"{"a": {"file": "a.js"}, "b": {"src": "b.ts"}}"#, #"chunk "b" has no file"#),
        (#"{"a": {"file": 3}}"#, #"chunk "a": file is a number, not a string"#),
        (#"{"a": {"file": "a.js", "css": "a.css"}}"#, #"chunk "a": css is a string, not an array"#),
        (#"{"a": {"file": "a.js", "assets": [1]}}"#, #"chunk "a": assets[0] is a number, not a string"#),
    ])
    func viteStructureErrors(_ json: String, _ expected: String) throws {
        #expect(try manifestProblem(json) == expected)
    }

    @Test func anObjectThatIsNeitherFormatHasNoFilesArray() throws {
        let problem = try #require(try manifestProblem(#"{"name": "flipart", "chunks": {"src": "x"}}"#))
        #expect(problem.hasPrefix("no files array"))
    }
}
