// Fuzzes the games.txt parser.
//
// Input: the text of a games list.
import FuzzerDriver
import LarderHTTP
import LarderPrecache

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let list = GamesList.parse(text, source: "games.txt")
    let lineCount = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count

    var lastProblemLine = 0
    for problem in list.problems {
        precondition((1...lineCount).contains(problem.line), "problem on line \(problem.line) of \(lineCount)")
        precondition(problem.line > lastProblemLine, "problems out of order or twice for a line")
        lastProblemLine = problem.line
        precondition(problem.description.hasPrefix("games.txt:\(problem.line): "), problem.description)
    }

    var slugs: Set<String> = []
    var manifests: Set<CacheKey> = []
    var lastGameLine = 0
    for entry in list.entries {
        switch entry {
        case .page(let url, let text):
            precondition(url.fragment == nil, "page \(url) keeps its fragment")
            precondition(url.path.lowercased().hasSuffix(".html"), "page \(url) is not .html")
            precondition(text.utf8.count <= GamesList.maximumLineLength, "page line over the limit")
        case .game(let game):
            precondition((1...lineCount).contains(game.line), "game on line \(game.line) of \(lineCount)")
            precondition(game.line > lastGameLine, "games out of order")
            lastGameLine = game.line
            precondition(game.root.query == nil && game.root.fragment == nil, "root \(game.root) has a query or fragment")
            precondition(game.manifestURL.fragment == nil, "manifest \(game.manifestURL) has a fragment")
            precondition(
                game.manifestURL.path.lowercased().hasSuffix(".json"),
                "manifest \(game.manifestURL) is not .json"
            )
            precondition(game.metadataURL.path == game.root.path + "/metadata.json", "metadata \(game.metadataURL)")
            precondition(
                game.root.scheme == game.manifestURL.scheme && game.root.host == game.manifestURL.host
                    && game.root.port == game.manifestURL.port,
                "root \(game.root) and manifest \(game.manifestURL) on different origins"
            )
            precondition(
                game.manifestURL.path.hasPrefix(game.root.path + "/"),
                "manifest \(game.manifestURL) not under root \(game.root)"
            )
            precondition(isSlug(game.slug), "slug \(game.slug.debugDescription)")
            precondition(slugs.insert(game.slug).inserted, "slug \(game.slug) twice")
            precondition(
                manifests.insert(CacheKey(url: game.manifestURL, filter: .none)).inserted,
                "manifest \(game.manifestURL) twice"
            )
        case .series(let series):
            precondition((1...lineCount).contains(series.lineNumber), "series on line \(series.lineNumber) of \(lineCount)")
            precondition((0...SeriesSource.maximumPast).contains(series.past), "past=\(series.past)")
            precondition((0...SeriesSource.maximumFuture).contains(series.future), "future=\(series.future)")
            precondition(series.line.hasPrefix(GamesList.seriesKeyword + " "), "series line \(series.line)")
        }
    }

    // Writing the entries back as a list (pages as written, games by manifest URL) gives them again.
    let written = list.entries.map { entry -> String in
        switch entry {
        case .page(_, let text): return text
        case .game(let game): return game.manifestURL.absoluteString
        case .series(let series): return series.line
        }
    }
    let again = GamesList.parse(lines: written, source: "games.txt")
    precondition(again.problems.isEmpty, "the entries written back have problems: \(again.problems)")
    precondition(
        again.entries.count == list.entries.count, "the entries written back are \(again.entries.count), not \(list.entries.count)")
    for (entry, reread) in zip(list.entries, again.entries) {
        switch (entry, reread) {
        case (.page(let url, let text), .page(let rereadURL, let rereadText)):
            precondition(url == rereadURL && text == rereadText, "page \(text) reads back as \(rereadText)")
        case (.game(let game), .game(let rereadGame)):
            precondition(
                game.root.absoluteString == rereadGame.root.absoluteString
                    && game.manifestURL.absoluteString == rereadGame.manifestURL.absoluteString
                    && game.metadataURL.absoluteString == rereadGame.metadataURL.absoluteString
                    && game.slug == rereadGame.slug,
                "game \(game) reads back as \(rereadGame)"
            )
        case (.series(let series), .series(let rereadSeries)):
            precondition(
                series.location == rereadSeries.location && series.past == rereadSeries.past && series.future == rereadSeries.future
                    && series.timeZoneName == rereadSeries.timeZoneName && series.from == rereadSeries.from,
                "series \(series.line) reads back as \(rereadSeries.line)"
            )
        default:
            preconditionFailure("\(entry) reads back as \(reread)")
        }
    }
    return 0
}

/// `[a-z0-9]` runs joined by single dashes.
func isSlug(_ slug: String) -> Bool {
    let parts = slug.split(separator: "-", omittingEmptySubsequences: false)
    return !parts.isEmpty
        && parts.allSatisfy { part in
            !part.isEmpty
                && part.utf8.allSatisfy {
                    ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                }
        }
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))
