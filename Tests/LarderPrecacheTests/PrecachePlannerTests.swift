import LarderHTTP
import LarderPrecache
import LarderStore
import Testing

struct PrecachePlannerTests {
    static let gamesText = """
        https://cdn.example/embed/runtime.html#gameplay=1a2b&bg=FFEEBB
        https://cdn.example/games/flipart
        https://cdn.example/games/wordbind/
        https://cdn.example/games/chess
        https://cdn.example/games/broken
        https://cdn.example/home.html
        https://cdn.example/embed/runtime.html#gameplay=9z
        """

    /// Parses an `offline.meta.json` for a game of ``gamesText``.
    static func manifest(_ game: GameSource, _ json: String) throws -> ManifestOutcome {
        .parsed(
            try PrecacheManifest.parse(
                status: 200,
                contentType: "application/json",
                body: Array(json.utf8),
                manifestURL: game.manifestURL,
                root: game.root,
                allowCrossOrigin: false
            )
        )
    }

    static func key(_ url: String) throws -> CacheKey {
        try CacheKey(url: url)
    }

    struct Fixture {
        var list: GamesList
        var manifests: [String: ManifestOutcome]
    }

    static func fixture() throws -> Fixture {
        let list = GamesList.parse(Self.gamesText, source: "games.txt")
        #expect(list.problems.isEmpty)
        let games = Dictionary(uniqueKeysWithValues: list.games.map { ($0.slug, $0) })
        let flipart = try #require(games["flipart"])
        let wordbind = try #require(games["wordbind"])
        let chess = try #require(games["chess"])
        let broken = try #require(games["broken"])
        return Fixture(
            list: list,
            manifests: [
                "flipart": try Self.manifest(
                    flipart,
                    #"""
                    {"files": ["flipart/index.html", "flipart/a.js", "flipart/a.js.map", "shared/vendor.js",
                               "flipart/debug/log.js", "https://fonts.example/f.woff2"]}
                    """#
                ),
                "wordbind": try Self.manifest(
                    wordbind,
                    #"{"files": ["wordbind/w.js", "shared/vendor.js", "../home.html"]}"#
                ),
                "chess": try Self.manifest(chess, #"{"files": ["chess/c.js", "chess/aiWorker.js"], "skip": true}"#),
                "broken": .invalid(ManifestError(manifestURL: broken.manifestURL, problem: "answered HTTP 404")),
            ]
        )
    }

    @Test func ordersPagesFirstThenGamesInListOrderAndSharesFiles() throws {
        let fixture = try Self.fixture()
        let cached = try Self.key("https://cdn.example/games/wordbind/w.js")
        let planner = PrecachePlanner(excludes: [ExcludeGlob("*.map"), ExcludeGlob("**/debug/**")])
        let plan = planner.plan(gamesList: fixture.list, manifests: fixture.manifests) { key in
            key == cached ? CachedState() : nil
        }

        #expect(
            plan.fetches.map(\.key.rawValue) == [
                "https://cdn.example/embed/runtime.html",
                "https://cdn.example/home.html",
                "https://cdn.example/games/flipart/index.html",
                "https://cdn.example/games/flipart/a.js",
                "https://cdn.example/games/shared/vendor.js",
            ]
        )
        #expect(plan.fetches.map(\.kind) == [.page, .page, .asset, .asset, .asset])
        #expect(plan.fetches.map(\.games) == [[], ["wordbind"], ["flipart"], ["flipart"], ["flipart", "wordbind"]])
        #expect(plan.fetches.allSatisfy { $0.url.fragment == nil && $0.revision == nil })

        #expect(plan.games.map(\.slug) == ["flipart", "wordbind", "chess", "broken"])
        #expect(
            plan.games[0].state
                == .planned(
                    files: [
                        try Self.key("https://cdn.example/games/flipart/index.html"),
                        try Self.key("https://cdn.example/games/flipart/a.js"),
                        try Self.key("https://cdn.example/games/shared/vendor.js"),
                    ],
                    alreadyCached: 0,
                    toFetch: 3,
                    excluded: 2,
                    refused: [
                        RefusedEntry(
                            url: "https://fonts.example/f.woff2",
                            reason:
                                "it is on https://fonts.example, another origin than the manifest (https://cdn.example); "
                                + "cross-origin entries are not allowed"
                        )
                    ]
                )
        )
        #expect(
            plan.games[1].state
                == .planned(
                    files: [
                        cached, try Self.key("https://cdn.example/games/shared/vendor.js"),
                        try Self.key("https://cdn.example/home.html"),
                    ],
                    alreadyCached: 1,
                    toFetch: 2,
                    excluded: 0,
                    refused: []
                )
        )
        #expect(plan.games[2].state == .skipped)
        #expect(
            plan.games[3].state
                == .failed(reason: "https://cdn.example/games/broken/offline.meta.json: answered HTTP 404")
        )
        #expect(plan.games.map(\.line) == [2, 3, 4, 5])
        #expect(plan.games.allSatisfy { $0.displayName == nil })
        #expect(plan.games[1].root.absoluteString == "https://cdn.example/games/wordbind")
        #expect(plan.games[1].metadataURL.absoluteString == "https://cdn.example/games/wordbind/metadata.json")

        #expect(plan.manifestsToStore.map(\.game) == ["flipart", "wordbind", "chess"])
        #expect(
            plan.manifestsToStore.map(\.key.rawValue) == [
                "https://cdn.example/games/flipart/offline.meta.json",
                "https://cdn.example/games/wordbind/offline.meta.json",
                "https://cdn.example/games/chess/offline.meta.json",
            ]
        )
        #expect(
            plan.keysListedByAnyManifest
                == Set(
                    try [
                        "https://cdn.example/games/flipart/index.html",
                        "https://cdn.example/games/flipart/a.js",
                        "https://cdn.example/games/shared/vendor.js",
                        "https://cdn.example/games/wordbind/w.js",
                        "https://cdn.example/home.html",
                        "https://cdn.example/games/flipart/offline.meta.json",
                        "https://cdn.example/games/wordbind/offline.meta.json",
                        "https://cdn.example/games/chess/offline.meta.json",
                    ].map(Self.key)
                )
        )
        #expect(plan.alreadyCachedCount == 1)
        #expect(plan.toFetchCount == 5)
        #expect(plan.excludedCount == 2)
    }

    @Test func pagesAreAlwaysFetchedAndCachedAssetsNever() throws {
        let fixture = try Self.fixture()
        var asked: [CacheKey] = []
        let plan = PrecachePlanner().plan(gamesList: fixture.list, manifests: fixture.manifests) { key in
            asked.append(key)
            return CachedState()
        }
        // A game's own index.html is a page too: not hashed, so fetched on every run.
        #expect(
            plan.fetches.map(\.key.rawValue) == [
                "https://cdn.example/embed/runtime.html", "https://cdn.example/home.html",
                "https://cdn.example/games/flipart/index.html",
            ]
        )
        #expect(plan.fetches.map(\.games) == [[], ["wordbind"], ["flipart"]])
        // Without excludes every other flipart file counts; each distinct key is looked up once.
        #expect(plan.alreadyCachedCount == 5)
        #expect(plan.excludedCount == 0)
        #expect(asked.count == Set(asked).count)
        #expect(!asked.contains(try Self.key("https://cdn.example/home.html")))
        guard case .planned(let files, let alreadyCached, let toFetch, _, _) = plan.games[1].state else {
            Issue.record("wordbind should be planned")
            return
        }
        #expect(files.count == 3)
        #expect(alreadyCached == 2)
        #expect(toFetch == 1)
    }

    @Test(
        arguments: [
            // (manifest revision, stored revision (nil entry = not stored), fetched?)
            ("2", .some(.some("1")), true),
            ("2", .some(.some("2")), false),
            ("2", .some(nil), true),
            // Unrevisioned, index.html is a page: fetched whatever is stored.
            (nil, .some(.some("1")), true),
            (nil, .some(nil), true),
            ("2", nil, true),
            (nil, nil, true),
        ] as [(String?, String??, Bool)]
    )
    func workboxRevisionsDecideRefetching(_ revision: String?, _ stored: String??, _ fetched: Bool) throws {
        let list = GamesList.parse("https://cdn.example/app/sw/precache-manifest.json", source: "games.txt")
        let game = try #require(list.games.first)
        let entry = revision.map { #"{"url": "index.html", "revision": "\#($0)"}"# } ?? #""index.html""#
        let manifest = try PrecacheManifest.parse(
            status: 200,
            contentType: "application/json",
            body: Array("[\(entry)]".utf8),
            manifestURL: game.manifestURL,
            root: game.root,
            allowCrossOrigin: false
        )
        let plan = PrecachePlanner().plan(gamesList: list, manifests: [game.slug: .parsed(manifest)]) { _ in
            stored.map { CachedState(revision: $0) }
        }
        #expect(plan.fetches.count == (fetched ? 1 : 0))
        if fetched {
            #expect(plan.fetches.first?.revision == revision)
            #expect(plan.fetches.first?.key.rawValue == "https://cdn.example/app/sw/index.html")
            #expect(plan.fetches.first?.kind == .asset)
        }
        #expect(plan.alreadyCachedCount == (fetched ? 0 : 1))
    }

    @Test func aGamesPageIsItsFirstFileAlwaysFetchedNeverExcluded() throws {
        let list = GamesList.parse(
            """
            page https://games.example/today
            https://cdn.example/games/flipart page https://cdn.example/play/flipart
            https://cdn.example/games/wordbind page https://games.example/today
            """,
            source: "games.txt"
        )
        let flipart = try #require(list.games.first)
        let wordbind = try #require(list.games.last)
        // The manifest lists the page too, and an --exclude glob matches it: still one file, kept.
        let plan = PrecachePlanner(excludes: [ExcludeGlob("**/play/**")]).plan(
            gamesList: list,
            manifests: [
                "flipart": try Self.manifest(flipart, #"{"files": ["flipart/a.js", "https://cdn.example/play/flipart"]}"#),
                "wordbind": try Self.manifest(wordbind, #"{"files": ["wordbind/w.js"]}"#),
            ],
            cachedState: { _ in CachedState() }
        )
        let page = try Self.key("https://cdn.example/play/flipart")
        let today = try Self.key("https://games.example/today")
        #expect(
            plan.games.map(\.state) == [
                .planned(
                    files: [page, try Self.key("https://cdn.example/games/flipart/a.js")], alreadyCached: 1, toFetch: 1, excluded: 0,
                    refused: []),
                .planned(
                    files: [today, try Self.key("https://cdn.example/games/wordbind/w.js")], alreadyCached: 1, toFetch: 1, excluded: 0,
                    refused: []),
            ]
        )
        #expect(plan.games.map(\.page?.absoluteString) == ["https://cdn.example/play/flipart", "https://games.example/today"])
        #expect(plan.fetches.map(\.key) == [today, page], "stored pages are fetched again; the list's pages come first")
        #expect(plan.fetches.map(\.kind) == [.page, .page])
        #expect(plan.fetches.map(\.games) == [["wordbind"], ["flipart"]])
    }

    @Test(
        arguments: [
            // (manifest revision, staged revision (nil = nothing staged), taken from staging?)
            ("2", .some(.some("2")), true),
            ("2", .some(.some("1")), false),
            (nil, .some(nil), true),
            ("2", nil, false),
        ] as [(String?, String??, Bool)]
    )
    func bodiesAnInterruptedRunStagedAreNotFetchedAgain(_ revision: String?, _ staged: String??, _ taken: Bool) throws {
        let list = GamesList.parse("https://cdn.example/app/sw/precache-manifest.json", source: "games.txt")
        let game = try #require(list.games.first)
        let entry = revision.map { #"{"url": "a.js", "revision": "\#($0)"}"# } ?? #""a.js""#
        let manifest = try PrecacheManifest.parse(
            status: 200,
            contentType: "application/json",
            body: Array("[\(entry)]".utf8),
            manifestURL: game.manifestURL,
            root: game.root,
            allowCrossOrigin: false
        )
        let plan = PrecachePlanner().plan(
            gamesList: list,
            manifests: [game.slug: .parsed(manifest)],
            cachedState: { _ in nil },
            stagedState: { _ in staged.map { CachedState(revision: $0) } }
        )
        let key = try Self.key("https://cdn.example/app/sw/a.js")
        #expect(plan.stagedKeys == (taken ? [key] : []))
        #expect(plan.fetches.map(\.key) == (taken ? [] : [key]))
        #expect(plan.fetches.allSatisfy { $0.kind == .asset && $0.games == [game.slug] })
        #expect(plan.alreadyCachedCount == (taken ? 1 : 0))
    }

    @Test func failedManifestsFailOnlyTheirGame() throws {
        let list = GamesList.parse(
            """
            https://cdn.example/games/down
            https://cdn.example/games/flipart
            https://cdn.example/games/forgotten
            """,
            source: "games.txt"
        )
        let flipart = try #require(list.games.first { $0.slug == "flipart" })
        let plan = PrecachePlanner().plan(
            gamesList: list,
            manifests: [
                "down": .fetchFailed(reason: "connection refused"),
                "flipart": try Self.manifest(flipart, #"{"files": ["flipart/a.js"]}"#),
            ],
            cachedState: { _ in nil }
        )
        #expect(
            plan.games.map(\.state) == [
                .failed(reason: "https://cdn.example/games/down/offline.meta.json: connection refused"),
                .planned(
                    files: [try Self.key("https://cdn.example/games/flipart/a.js")],
                    alreadyCached: 0,
                    toFetch: 1,
                    excluded: 0,
                    refused: []
                ),
                .failed(reason: "https://cdn.example/games/forgotten/offline.meta.json: its manifest was not fetched"),
            ]
        )
        #expect(plan.fetches.map(\.key.rawValue) == ["https://cdn.example/games/flipart/a.js"])
        #expect(plan.manifestsToStore.map(\.game) == ["flipart"])
    }

    @Test func aFileCachedForOneGameCountsAsCachedForTheNext() throws {
        let list = GamesList.parse("https://cdn.example/games/a\nhttps://cdn.example/games/b", source: "games.txt")
        let a = try #require(list.games.first)
        let b = try #require(list.games.last)
        var lookups = 0
        let plan = PrecachePlanner().plan(
            gamesList: list,
            manifests: [
                "a": try Self.manifest(a, #"{"files": ["shared/v.js", "a/a.js"]}"#),
                "b": try Self.manifest(b, #"{"files": ["shared/v.js"]}"#),
            ],
            cachedState: { key in
                lookups += 1
                return key.rawValue.hasSuffix("/v.js") ? CachedState() : nil
            }
        )
        #expect(lookups == 2)
        #expect(plan.alreadyCachedCount == 1)
        #expect(plan.fetches.map(\.key.rawValue) == ["https://cdn.example/games/a/a.js"])
        guard case .planned(_, let alreadyCached, let toFetch, _, _) = plan.games[1].state else {
            Issue.record("b should be planned")
            return
        }
        #expect(alreadyCached == 1)
        #expect(toFetch == 0)
    }

    @Test func excludesApplyToManifestFilesNotToListedPages() throws {
        let list = GamesList.parse(
            "https://cdn.example/debug/page.html\nhttps://cdn.example/games/a",
            source: "games.txt"
        )
        let game = try #require(list.games.first)
        let plan = PrecachePlanner(excludes: [ExcludeGlob("**/debug/**")]).plan(
            gamesList: list,
            manifests: ["a": try Self.manifest(game, #"{"files": ["a/debug/x.js", "a/debug/y.js", "a/z.js"]}"#)],
            cachedState: { _ in nil }
        )
        #expect(
            plan.fetches.map(\.key.rawValue) == [
                "https://cdn.example/debug/page.html", "https://cdn.example/games/a/z.js",
            ]
        )
        #expect(plan.excludedCount == 2)
        #expect(!plan.keysListedByAnyManifest.contains(try Self.key("https://cdn.example/games/a/debug/x.js")))
    }

    @Test func anEmptyListPlansNothing() {
        let plan = PrecachePlanner().plan(gamesList: GamesList(entries: [], problems: []), manifests: [:]) { _ in nil }
        #expect(plan.fetches.isEmpty && plan.games.isEmpty && plan.manifestsToStore.isEmpty)
        #expect(plan.keysListedByAnyManifest.isEmpty)
        #expect(plan.alreadyCachedCount == 0 && plan.toFetchCount == 0 && plan.excludedCount == 0)
    }
}
