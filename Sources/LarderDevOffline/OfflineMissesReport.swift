import Foundation
import LarderHTTP
import LarderIntrospection

/// The offline misses as /dev/offline shows them: grouped per origin and, where the path or the
/// `Referer` says so, per game; groups and the misses in each newest first.
public struct OfflineMissesReport: Sendable, Codable, Hashable {
    /// URLs kept.
    public var urls: Int
    /// The most URLs kept (the ones missed longest ago give way).
    public var capacity: Int
    /// The groups, the one with the latest miss first.
    public var groups: [OfflineMissGroup]
    /// The offline misses of the browser's own requests (the proxy's app origins), newest first, kept apart
    /// so that they neither fill nor push out the app's; nil from a proxy that did not tell them apart.
    public var browserMisses: [OfflineMiss]?

    /// Groups `misses` (newest first) by origin and by the game of `games` each belongs to.
    public init(misses: [OfflineMiss], capacity: Int, games: [GameReport]) {
        let attribution = OfflineMissAttribution(games: games)
        var groups: [OfflineMissGroup] = []
        var positions: [String: Int] = [:]
        for miss in misses {
            let game = attribution.game(of: miss)
            let id = "\(miss.origin) \(game?.slug ?? "")"
            if let position = positions[id] {
                groups[position].misses.append(miss)
            } else {
                positions[id] = groups.count
                groups.append(OfflineMissGroup(origin: miss.origin, game: game?.slug, gameName: game?.name, misses: [miss]))
            }
        }
        self.urls = misses.count
        self.capacity = capacity
        self.groups = groups
    }
}

/// Offline misses of one origin, and of one game when they belong to one.
public struct OfflineMissGroup: Sendable, Codable, Hashable {
    /// The origin of the URLs.
    public var origin: String
    /// The slug of the game they belong to, if any.
    public var game: String?
    /// That game's name.
    public var gameName: String?
    /// The misses, newest first.
    public var misses: [OfflineMiss]
}

/// Which game an offline miss belongs to: a game whose root the URL is under (its root, or a path
/// below it on the same origin), or whose root the request's `Referer` is under (an API call or a
/// chunk elsewhere, made by the game's page). When several are, the deepest root wins: a call to
/// `/api/me` from `/games/flip/` is Flip's even when a game is rooted at `/`.
struct OfflineMissAttribution {
    /// Deepest root first.
    private let roots: [(game: GameReport, root: HTTPURL)]

    init(games: [GameReport]) {
        self.roots = games.compactMap { game in (try? HTTPURL(parsing: game.root)).map { (game: game, root: $0) } }
            .sorted { $0.root.path.count > $1.root.path.count }
    }

    /// The game `miss` belongs to, or nil.
    func game(of miss: OfflineMiss) -> GameReport? {
        let urls = [miss.url, miss.referer].compactMap { $0.flatMap { try? HTTPURL(parsing: $0) } }
        return self.roots.first { candidate in urls.contains { Self.isUnder(candidate.root, $0) } }?.game
    }

    /// Whether `url` is `root` or below it on the same origin.
    private static func isUnder(_ root: HTTPURL, _ url: HTTPURL) -> Bool {
        guard root.origin == url.origin else { return false }
        let base = root.path.hasSuffix("/") ? String(root.path.dropLast()) : root.path
        return url.path == base || url.path.hasPrefix(base + "/")
    }
}

extension OfflineReport {
    /// Adds the proxy's offline misses (newest first): the groups, and on each game the misses since
    /// its last precache, which keep it from being reported as working offline.
    /// Each miss gets its note, and the fix the user applied to it (from ``answeredOffline``,
    /// ``extraURLs`` and ``keptNoStore``, so set them first).
    public mutating func add(offlineMisses misses: [OfflineMiss], capacity: Int) {
        let fixes = OfflineMissNote.Fixes(answeredOffline: self.answeredOffline, extraURLs: self.extraURLs, keptNoStore: self.keptNoStore)
        let misses = misses.map { OfflineMissNote.annotated($0, fixes: fixes, now: self.generatedAt) }
        let report = OfflineMissesReport(misses: misses, capacity: capacity, games: self.games)
        self.offlineMisses = report
        var byGame: [String: [OfflineMiss]] = [:]
        for group in report.groups {
            if let slug = group.game { byGame[slug, default: []] += group.misses }
        }
        for index in self.games.indices {
            self.games[index].add(offlineMisses: byGame[self.games[index].slug] ?? [])
        }
    }
}

extension GameReport {
    /// Keeps the GET and HEAD misses of the game that came after its last precache: while there is
    /// one, the game does not work offline, whatever its files say. A write (a POST the origin
    /// could not take) or a WebSocket is not something precache could fix, so it does not count;
    /// nor does the browser's own request for `/favicon.ico` (made from the game's page when the
    /// page names no icon), which is listed but breaks nothing.
    mutating func add(offlineMisses misses: [OfflineMiss]) {
        // A health check's miss is the honest answer Larder chose to give (docs/SERVING.md, "Health checks").
        let since = misses.filter {
            $0.lastSeen > self.lastPrecache && ["GET", "HEAD"].contains($0.method) && $0.upgrade == nil
                && $0.causes?.contains("health-check") != true
        }
        .sorted { $0.lastSeen > $1.lastSeen }
        self.offlineMisses = since
        let counted = since.count { !Self.isBrowsersIconRequest($0.url) }
        guard counted > 0, self.ready else { return }
        self.ready = false
        self.readiness = counted == 1 ? "1 offline miss" : "\(counted) offline misses"
    }

    /// Whether `url` is an origin's `/favicon.ico`, which browsers ask for by themselves.
    static func isBrowsersIconRequest(_ url: String) -> Bool {
        (try? HTTPURL(parsing: url))?.path == "/favicon.ico"
    }
}
