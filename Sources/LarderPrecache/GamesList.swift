import Foundation
import LarderHTTP
import LarderStore

/// A parsed games list (`games.txt`, or the URLs posted to `/dev/offline/precache`).
///
/// Grammar, one entry per line, words separated by whitespace:
/// - Blank lines and lines starting with `#` are ignored; whitespace around a line is trimmed.
/// - `page URL` is a page, whatever its path (`/`, `/today`, `/lab`): fetched on every run, cached as
///   it is. A lone URL whose path ends in `.html` is a page too.
/// - A lone URL whose path ends in `.json` (normally `offline.meta.json`) is a manifest URL; its game
///   root is the manifest's folder, or for a Vite `.vite/manifest.json` the folder holding `.vite`.
/// - Any other lone http(s) URL is a game root, whose manifest is `<root>/offline.meta.json`
///   (trailing `/` dropped first). A root may not have a query.
/// - `GAME-URL page PAGE-URL` is a game (a root or manifest URL, as above) with the page it is
///   played on: the page is fetched on every run with the game's files, and the game is ready only
///   when its page is cached too.
/// - `series MANIFEST-URL|URL-TEMPLATE [past=N] [future=N] [tz=Area/City] [from=YYYY-MM-DD]` is a
///   dated series (see ``SeriesSource``, parsed by `GamesList+Series.swift`): a word with `{` is a
///   template, any other a manifest URL.
/// - Anything else (another scheme, an unparsable URL, other words, a line over
///   ``maximumLineLength`` bytes) is a ``GamesListProblem``; the other lines still count.
/// - A line repeating an earlier one, or naming a game whose manifest an earlier line already names,
///   is left out (first wins).
public struct GamesList: Sendable, Hashable {
    /// The pages and games, in list order.
    public var entries: [GamesListEntry]
    /// The lines that were not used, in list order.
    public var problems: [GamesListProblem]

    /// The longest line accepted, in bytes of UTF-8 after trimming.
    public static let maximumLineLength = 8 * 1024

    /// The word that marks a page: `page URL`, or `GAME-URL page PAGE-URL` for a game's page.
    public static let pageKeyword = "page"

    /// The word that starts a dated series: `series MANIFEST-URL ...` or `series URL-TEMPLATE ...`.
    public static let seriesKeyword = "series"

    /// Creates a list from already-classified entries.
    public init(entries: [GamesListEntry], problems: [GamesListProblem]) {
        self.entries = entries
        self.problems = problems
    }

    /// The games, in list order.
    public var games: [GameSource] {
        self.entries.compactMap { entry in
            if case .game(let game) = entry {
                return game
            }
            return nil
        }
    }

    /// The dated series, in list order.
    public var series: [SeriesSource] {
        self.entries.compactMap { entry in
            if case .series(let series) = entry {
                return series
            }
            return nil
        }
    }

    /// The pages' URLs (without fragments), in list order; games' own pages are with their games.
    public var pageURLs: [HTTPURL] {
        self.entries.compactMap { entry in
            if case .page(let url, _) = entry {
                return url
            }
            return nil
        }
    }

    /// Parses the text of a games list. Lines end at `\n` (a `\r` before it is trimmed with the
    /// other whitespace); `source` names the list in problems, e.g. `games.txt`.
    public static func parse(_ text: String, source: String) -> GamesList {
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0))
        }
        return Self.parse(lines: lines, source: source)
    }

    /// Parses a list of lines with the same grammar as a file (for `{"urls": [...]}`); the line
    /// number in a problem is the 1-based position in `lines`.
    public static func parse(lines: [String], source: String) -> GamesList {
        var builder = Builder(source: source)
        for (index, line) in lines.enumerated() {
            builder.add(line: line, number: index + 1)
        }
        return GamesList(entries: builder.entries, problems: builder.problems)
    }

    /// Accumulates entries while keeping lines, manifests and slugs unique.
    struct Builder {
        let source: String
        var entries: [GamesListEntry] = []
        var problems: [GamesListProblem] = []
        var seenLines: Set<String> = []
        var seenManifests: Set<CacheKey> = []
        var takenSlugs: Set<String> = []
        var seenSeries: Set<String> = []

        init(source: String) {
            self.source = source
        }

        mutating func add(line rawLine: String, number: Int) {
            let line = rawLine.trimmingUnicodeWhitespace()
            if line.isEmpty || line.hasPrefix("#") {
                return
            }
            let length = line.utf8.count
            guard length <= GamesList.maximumLineLength else {
                self.problem(number, "the line is \(length) bytes long; the limit is \(GamesList.maximumLineLength)")
                return
            }
            guard self.seenLines.insert(line).inserted else {
                return
            }

            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            if words[0] == GamesList.seriesKeyword {
                self.addSeries(words, number: number)
                return
            }
            switch words.count {
            case 1 where words[0] == GamesList.pageKeyword:
                self.problem(number, "\"page\" needs the page's URL after it")
            case 1:
                guard let url = self.url(words[0], number: number) else { return }
                if url.path.lowercased().hasSuffix(".html") {
                    self.addPage(url, text: words[0])
                } else {
                    self.addGame(url, text: words[0], page: nil, number: number)
                }
            case 2 where words[0] == GamesList.pageKeyword:
                guard let url = self.url(words[1], number: number) else { return }
                self.addPage(url, text: words[1])
            case 3 where words[1] == GamesList.pageKeyword:
                guard let url = self.url(words[0], number: number), let page = self.url(words[2], number: number) else { return }
                guard !url.path.lowercased().hasSuffix(".html") else {
                    self.problem(number, "\(words[0].debugDescription) is a page, not a game; a game is named by its root or manifest URL")
                    return
                }
                self.addGame(url, text: words[0], page: Self.withoutFragment(page), number: number)
            default:
                self.problem(
                    number,
                    "expected a URL, \"page URL\", \"GAME-URL page PAGE-URL\" or \"series ...\" but found \(words.count) words: \(line.debugDescription)"
                )
            }
        }

        mutating func problem(_ number: Int, _ reason: String) {
            self.problems.append(GamesListProblem(source: self.source, line: number, reason: reason))
        }

        /// `text` parsed, or nil with a problem recorded.
        mutating func url(_ text: String, number: Int) -> HTTPURL? {
            do {
                return try HTTPURL(parsing: text)
            } catch {
                self.problem(number, error.description)
                return nil
            }
        }

        mutating func addPage(_ url: HTTPURL, text: String) {
            self.entries.append(.page(url: Self.withoutFragment(url), text: text))
        }

        /// A game named by its root or its manifest URL (`text` as written).
        mutating func addGame(_ url: HTTPURL, text: String, page: HTTPURL?, number: Int) {
            let withoutFragment = Self.withoutFragment(url)
            let lowercasedPath = url.path.lowercased()
            var root = withoutFragment
            root.query = nil
            let manifestURL: HTTPURL
            if lowercasedPath.hasSuffix(".json") {
                manifestURL = withoutFragment
                root.path = Self.folder(of: url.path)
                if lowercasedPath.hasSuffix("/.vite/manifest.json") {
                    root.path = Self.folder(of: root.path)
                }
            } else {
                guard url.query == nil else {
                    self.problem(
                        number,
                        "a game root cannot have a query (\(text.debugDescription)); name its manifest URL instead"
                    )
                    return
                }
                root.path = Self.droppingTrailingSlashes(url.path)
                manifestURL = Self.appending("offline.meta.json", to: root)
            }

            guard self.seenManifests.insert(CacheKey(url: manifestURL, filter: .none)).inserted else {
                return
            }
            let slug = self.uniqueSlug(GameSlug.make(root: root))
            self.entries.append(
                .game(
                    GameSource(
                        root: root,
                        manifestURL: manifestURL,
                        metadataURL: Self.appending("metadata.json", to: root),
                        slug: slug,
                        line: number,
                        page: page
                    )
                )
            )
        }

        static func withoutFragment(_ url: HTTPURL) -> HTTPURL {
            var url = url
            url.fragment = nil
            return url
        }

        /// `base`, else `base-2`, `base-3`... whichever is not taken yet.
        mutating func uniqueSlug(_ base: String) -> String {
            var candidate = base
            var suffix = 2
            while self.takenSlugs.contains(candidate) {
                candidate = "\(base)-\(suffix)"
                suffix += 1
            }
            self.takenSlugs.insert(candidate)
            return candidate
        }

        /// The path up to (not including) its last `/`: the folder of a file path.
        static func folder(of path: String) -> String {
            guard let slash = path.lastIndex(of: "/") else {
                return ""
            }
            return String(path[..<slash])
        }

        static func droppingTrailingSlashes(_ path: String) -> String {
            var path = Substring(path)
            while path.hasSuffix("/") {
                path = path.dropLast()
            }
            return String(path)
        }

        /// `<root>/<name>`, with no query or fragment.
        static func appending(_ name: String, to root: HTTPURL) -> HTTPURL {
            var url = root
            url.path = "\(root.path)/\(name)"
            url.query = nil
            url.fragment = nil
            return url
        }
    }
}
