import LarderHTTP
import LarderStore

extension GamesList {
    /// Adds the extra URLs added on /dev/offline that go with this run, as pages: those of the games
    /// the list names (by slug), and those of no game. The one rule for `larder precache` and the
    /// proxy's precache jobs alike.
    public mutating func add(extraURLs: [ExtraURLRecord]) {
        let slugs = Set(self.games.map(\.slug))
        var listed = Set(self.pageURLs)
        for extra in extraURLs where extra.gameSlug.map({ slugs.contains($0) }) ?? true {
            guard let url = try? HTTPURL(parsing: extra.url), listed.insert(url).inserted else { continue }
            self.entries.append(.page(url: url, text: extra.url))
        }
    }
}
