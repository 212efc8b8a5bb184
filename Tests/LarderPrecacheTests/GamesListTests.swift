import LarderPrecache
import LarderStore
import Testing

struct GamesListTests {
    enum Expected: Sendable {
        case page(url: String, text: String)
        case game(root: String, manifest: String, slug: String)
        case gameWithPage(manifest: String, page: String)
        case ignored
        case problem(containing: String)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var line: String
        var expected: Expected
        var testDescription: String { self.line.debugDescription }
    }

    static let cases: [Case] = [
        // Pages.
        Case(
            line: "https://cdn.example/games/runtime.html",
            expected: .page(
                url: "https://cdn.example/games/runtime.html",
                text: "https://cdn.example/games/runtime.html"
            )
        ),
        Case(
            line: "https://cdn.example/games/runtime.html#gameplay=1a2b&bg=FFEEBB",
            expected: .page(
                url: "https://cdn.example/games/runtime.html",
                text: "https://cdn.example/games/runtime.html#gameplay=1a2b&bg=FFEEBB"
            )
        ),
        Case(
            line: "https://cdn.example/embed/play.html?puzzle=7",
            expected: .page(
                url: "https://cdn.example/embed/play.html?puzzle=7",
                text: "https://cdn.example/embed/play.html?puzzle=7"
            )
        ),
        Case(
            line: "HTTPS://CDN.example/INDEX.HTML",
            expected: .page(url: "https://cdn.example/INDEX.HTML", text: "HTTPS://CDN.example/INDEX.HTML")
        ),
        // Pages by keyword, whatever their path; a tab separates words too.
        Case(line: "page https://games.example/", expected: .page(url: "https://games.example/", text: "https://games.example/")),
        Case(
            line: "page https://games.example/today#tab=2",
            expected: .page(url: "https://games.example/today", text: "https://games.example/today#tab=2")
        ),
        Case(line: "page\thttps://games.example/lab", expected: .page(url: "https://games.example/lab", text: "https://games.example/lab")),
        Case(
            line: "page https://games.example/api/today.json?x=1",
            expected: .page(url: "https://games.example/api/today.json?x=1", text: "https://games.example/api/today.json?x=1")
        ),
        // Games with their pages.
        Case(
            line: "https://cdn.example/games/flipart page https://games.example/play/flipart",
            expected: .gameWithPage(
                manifest: "https://cdn.example/games/flipart/offline.meta.json",
                page: "https://games.example/play/flipart"
            )
        ),
        Case(
            line: "https://cdn.example/app/.vite/manifest.json   page   https://games.example/lab#start",
            expected: .gameWithPage(manifest: "https://cdn.example/app/.vite/manifest.json", page: "https://games.example/lab")
        ),
        // Manifest URLs.
        Case(
            line: "https://cdn.example/games/flipart/offline.meta.json",
            expected: .game(
                root: "https://cdn.example/games/flipart",
                manifest: "https://cdn.example/games/flipart/offline.meta.json",
                slug: "flipart"
            )
        ),
        Case(
            line: "https://cdn.example/games/flipart/offline.meta.json?v=3#x",
            expected: .game(
                root: "https://cdn.example/games/flipart",
                manifest: "https://cdn.example/games/flipart/offline.meta.json?v=3",
                slug: "flipart"
            )
        ),
        Case(
            line: "https://cdn.example/app/sw/precache-manifest.4f2a.json",
            expected: .game(
                root: "https://cdn.example/app/sw",
                manifest: "https://cdn.example/app/sw/precache-manifest.4f2a.json",
                slug: "sw"
            )
        ),
        Case(
            line: "https://cdn.example/app/.vite/manifest.json",
            expected: .game(
                root: "https://cdn.example/app",
                manifest: "https://cdn.example/app/.vite/manifest.json",
                slug: "app"
            )
        ),
        // Game roots, with and without a trailing slash.
        Case(
            line: "https://cdn.example/games/flipart",
            expected: .game(
                root: "https://cdn.example/games/flipart",
                manifest: "https://cdn.example/games/flipart/offline.meta.json",
                slug: "flipart"
            )
        ),
        Case(
            line: "https://cdn.example/games/flipart/",
            expected: .game(
                root: "https://cdn.example/games/flipart",
                manifest: "https://cdn.example/games/flipart/offline.meta.json",
                slug: "flipart"
            )
        ),
        Case(
            line: "http://127.0.0.1:9000/games/flipart//",
            expected: .game(
                root: "http://127.0.0.1:9000/games/flipart",
                manifest: "http://127.0.0.1:9000/games/flipart/offline.meta.json",
                slug: "flipart"
            )
        ),
        Case(
            line: "https://cdn.example/games/Flip%20Art_2#top",
            expected: .game(
                root: "https://cdn.example/games/Flip%20Art_2",
                manifest: "https://cdn.example/games/Flip%20Art_2/offline.meta.json",
                slug: "flip-art-2"
            )
        ),
        Case(
            line: "https://cdn.example",
            expected: .game(
                root: "https://cdn.example/",
                manifest: "https://cdn.example/offline.meta.json",
                slug: "cdn-example"
            )
        ),
        // Whitespace, comments, blanks.
        Case(
            line: "   \thttps://cdn.example/games/indented  \r",
            expected: .game(
                root: "https://cdn.example/games/indented",
                manifest: "https://cdn.example/games/indented/offline.meta.json",
                slug: "indented"
            )
        ),
        Case(line: "# today's games", expected: .ignored),
        Case(line: "  # https://cdn.example/games/commented-out", expected: .ignored),
        Case(line: "", expected: .ignored),
        Case(line: " \t ", expected: .ignored),
        // Problems.
        Case(line: "ftp://cdn.example/games/old", expected: .problem(containing: "unsupported scheme \"ftp\"")),
        Case(line: "file:///home/me/game", expected: .problem(containing: "unsupported scheme \"file\"")),
        Case(line: "cdn.example/games/flipart", expected: .problem(containing: "not an absolute URL")),
        Case(line: "this is not a url", expected: .problem(containing: "but found 5 words: \"this is not a url\"")),
        Case(line: "page", expected: .problem(containing: "\"page\" needs the page's URL after it")),
        Case(
            line: "Page https://games.example/",
            expected: .problem(containing: "expected a URL, \"page URL\", \"GAME-URL page PAGE-URL\" or \"series ...\"")),
        Case(line: "page https://a.example/ https://b.example/", expected: .problem(containing: "found 3 words")),
        Case(line: "https://cdn.example/g pages https://games.example/", expected: .problem(containing: "found 3 words")),
        Case(line: "page ftp://cdn.example/old", expected: .problem(containing: "unsupported scheme \"ftp\"")),
        Case(
            line: "https://cdn.example/games/flipart page mailto:me@example.com",
            expected: .problem(containing: "unsupported scheme \"mailto\"")
        ),
        Case(
            line: "https://cdn.example/index.html page https://games.example/",
            expected: .problem(containing: "is a page, not a game")
        ),
        Case(
            line: "https://cdn.example/games/flipart?tab=2 page https://games.example/",
            expected: .problem(containing: "a game root cannot have a query")
        ),
        Case(line: "https://user:secret@cdn.example/games/x", expected: .problem(containing: "user information")),
        Case(line: "https:///games/x", expected: .problem(containing: "no host")),
        Case(
            line: "https://cdn.example/games/flipart?tab=2",
            expected: .problem(containing: "a game root cannot have a query")
        ),
        Case(
            line: "https://cdn.example/" + String(repeating: "a", count: 9000),
            expected: .problem(containing: "the line is 9020 bytes long; the limit is 8192")
        ),
    ]

    @Test(arguments: cases)
    func oneLine(_ testCase: Case) throws {
        let list = GamesList.parse(testCase.line, source: "games.txt")
        switch testCase.expected {
        case .page(let url, let text):
            #expect(list.problems.isEmpty)
            #expect(list.entries.count == 1)
            guard case .page(let pageURL, let pageText)? = list.entries.first else {
                Issue.record("expected a page, got \(list.entries)")
                return
            }
            #expect(pageURL.absoluteString == url)
            #expect(pageURL.fragment == nil)
            #expect(pageText == text)
        case .game(let root, let manifest, let slug):
            #expect(list.problems.isEmpty)
            #expect(list.entries.count == 1)
            guard case .game(let game)? = list.entries.first else {
                Issue.record("expected a game, got \(list.entries)")
                return
            }
            #expect(game.root.absoluteString == root)
            #expect(!game.root.path.hasSuffix("/"))
            #expect(game.root.query == nil && game.root.fragment == nil)
            #expect(game.manifestURL.absoluteString == manifest)
            #expect(game.manifestURL.fragment == nil)
            let expectedMetadata = root.hasSuffix("/") ? root + "metadata.json" : root + "/metadata.json"
            #expect(game.metadataURL.absoluteString == expectedMetadata)
            #expect(game.slug == slug)
            #expect(game.line == 1)
            #expect(game.page == nil)
        case .gameWithPage(let manifest, let page):
            #expect(list.problems.isEmpty)
            #expect(list.pageURLs.isEmpty, "a game's page is the game's, not a page of its own")
            let game = try #require(list.games.first)
            #expect(list.entries.count == 1)
            #expect(game.manifestURL.absoluteString == manifest)
            #expect(game.page?.absoluteString == page)
        case .ignored:
            #expect(list.entries.isEmpty)
            #expect(list.problems.isEmpty)
        case .problem(let fragment):
            #expect(list.entries.isEmpty)
            let problem = try #require(list.problems.first)
            #expect(list.problems.count == 1)
            #expect(problem.line == 1)
            #expect(problem.source == "games.txt")
            #expect(problem.reason.contains(fragment), "\(problem.reason)")
            #expect(problem.description == "games.txt:1: \(problem.reason)")
        }
    }

    @Test func wholeFileKeepsOrderNumbersLinesAndSkipsDuplicates() throws {
        let text = [
            "# Today's games",  // 1
            "https://cdn.example/embed/runtime.html#gameplay=1a2b&bg=FFEEBB",  // 2
            "",  // 3
            "  https://cdn.example/games/flipart/",  // 4
            "ftp://cdn.example/games/old",  // 5
            "https://cdn.example/games/wordbind/offline.meta.json",  // 6
            "https://cdn.example/games/flipart/",  // 7: same line as 4
            "https://cdn.example/games/flipart",  // 8: same game as 4
            "https://cdn.example/games/flipart/offline.meta.json",  // 9: same game as 4
            "https://cdn.example/embed/runtime.html#gameplay=1a2b&bg=FFEEBB",  // 10: same line as 2
            "https://other.example/games/flipart",  // 11
            "not a url at all",  // 12
            "https://third.example/games/flipart/offline.meta.json",  // 13
        ].joined(separator: "\r\n")

        let list = GamesList.parse(text, source: "games.txt")

        #expect(list.pageURLs.map(\.absoluteString) == ["https://cdn.example/embed/runtime.html"])
        #expect(list.games.map(\.slug) == ["flipart", "wordbind", "flipart-2", "flipart-3"])
        #expect(list.games.map(\.line) == [4, 6, 11, 13])
        #expect(
            list.games.map(\.root.absoluteString) == [
                "https://cdn.example/games/flipart", "https://cdn.example/games/wordbind",
                "https://other.example/games/flipart", "https://third.example/games/flipart",
            ]
        )
        guard case .page? = list.entries.first else {
            Issue.record("the page should come first, as listed")
            return
        }
        #expect(list.problems.map(\.line) == [5, 12])
        #expect(list.problems.map(\.source) == ["games.txt", "games.txt"])
        let ftp = try #require(list.problems.first)
        #expect(ftp.description.hasPrefix("games.txt:5: invalid URL \"ftp://cdn.example/games/old\": "))
        #expect(ftp.description.contains("unsupported scheme"))
        #expect(list.problems[1].description.hasPrefix("games.txt:12: "))
    }

    @Test func problemsUseTheSourceNameAsGiven() {
        let list = GamesList.parse("\n\nmailto:someone@example.com", source: "lists/today.txt")
        #expect(list.problems.map(\.description).first?.hasPrefix("lists/today.txt:3: ") == true)
    }

    @Test func slugsAreMadeUnique() {
        let list = GamesList.parse(
            """
            https://a.example/flipart
            https://b.example/flipart
            https://c.example/flipart-2
            https://d.example/FLIPART/
            https://e.example/%E2%9C%93/
            https://f.example/---/
            """,
            source: "games.txt"
        )
        #expect(
            list.games.map(\.slug) == ["flipart", "flipart-2", "flipart-2-2", "flipart-3", "e-example", "f-example"]
        )
        #expect(Set(list.games.map(\.slug)).count == list.games.count)
    }

    @Test func linesFromTheWebAPIUseTheSameGrammar() throws {
        let list = GamesList.parse(
            lines: [
                "https://cdn.example/embed/runtime.html",
                " https://cdn.example/games/flipart/ ",
                "javascript:alert(1)",
                "https://cdn.example/games/flipart",
                "",
            ],
            source: "request"
        )
        #expect(list.pageURLs.map(\.absoluteString) == ["https://cdn.example/embed/runtime.html"])
        #expect(list.games.map(\.manifestURL.absoluteString) == ["https://cdn.example/games/flipart/offline.meta.json"])
        let problem = try #require(list.problems.first)
        #expect(list.problems.count == 1)
        #expect(problem.description.hasPrefix("request:3: "))
        #expect(problem.reason.contains("javascript"))
    }

    @Test func aLineWithANewlineInsideFromTheWebAPIIsAProblem() {
        let list = GamesList.parse(lines: ["https://cdn.example/a\nhttps://cdn.example/b"], source: "request")
        #expect(list.entries.isEmpty)
        #expect(list.problems.map(\.line) == [1])
    }

    @Test func emptyTextHasNothing() {
        let list = GamesList.parse("", source: "games.txt")
        #expect(list.entries.isEmpty)
        #expect(list.problems.isEmpty)
    }
}
