import Foundation
import LarderHTTP
import LarderStore

/// What an import will do, decided against one snapshot of the index.
struct ImportPlan: Sendable {
    /// One game of the pack.
    struct Game: Sendable {
        var game: PackGame
        /// Its slug in this cache: the recorded game's with the same root, else the pack's (made
        /// unique when another game has it).
        var slug: String
        /// `.installed` when the pack's version replaces this cache's, else why not.
        var decision: PackImportReport.Outcome
        /// The keys to install with its switch: the entries staged for it.
        var staged: [String]
    }

    /// One page of the pack, and whether to record it.
    struct Page: Sendable {
        var page: PackPage
        var install: Bool
    }

    var games: [Game] = []
    var pages: [Page] = []
    /// The entries to write, each once.
    var installs: [PackImporter.Install] = []
    /// Entries whose copy here is as new or newer.
    var kept = 0
}

extension PackImporter {
    /// Decides, game by game and entry by entry, what of `manifest` is newer than what `snapshot`
    /// holds (``NewerCopy``). An entry whose body file here is missing or of another size counts as
    /// absent.
    static func plan(_ manifest: PackManifest, snapshot: IndexSnapshot) throws -> ImportPlan {
        var plan = ImportPlan()
        let entries = Dictionary(manifest.entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var decided: [String: Bool] = [:]
        func decide(_ key: String, staged: Bool) throws -> Bool {
            if let known = decided[key] { return known }
            guard let entry = entries[key] else { return false }
            var install = true
            if let stored = try snapshot.entry(exactly: key) {
                let size = (try? FileManager.default.attributesOfItem(atPath: stored.bodyPath)[.size]) as? NSNumber
                install =
                    size?.int64Value != stored.bodySize
                    || NewerCopy.replaces(entry.stamp, over: NewerCopy.Stamp(headers: stored.headers, responseTime: stored.responseTime))
            }
            decided[key] = install
            if install {
                plan.installs.append(PackImporter.Install(entry: entry, staged: staged))
            } else {
                plan.kept += 1
            }
            return install
        }

        var taken = Set(try snapshot.games().map(\.slug))
        for game in manifest.games {
            let existing = try snapshot.game(root: game.root)
            var slug = existing?.slug ?? game.slug
            if existing == nil {
                let base = slug
                var suffix = 2
                while taken.contains(slug) {
                    slug = "\(base)-\(suffix)"
                    suffix += 1
                }
                taken.insert(slug)
            }
            let stored = existing.map { NewerCopy.GameStamp(isComplete: $0.isComplete, lastRun: $0.lastRun) }
            guard NewerCopy.replaces(game.stamp, over: stored) else {
                let same = stored == game.stamp
                plan.games.append(.init(game: game, slug: slug, decision: same ? .upToDate : .keptNewer, staged: []))
                continue
            }
            let staged = try game.entryKeys.filter { try decide($0, staged: true) }
            plan.games.append(.init(game: game, slug: slug, decision: .installed(state: game.state), staged: staged))
        }
        let recordedPages = Set(try snapshot.pages().map(\.key.rawValue))
        for page in manifest.pages {
            var install = !recordedPages.contains(page.key)
            for key in page.entryKeys where try decide(key, staged: false) {
                install = true
            }
            plan.pages.append(.init(page: page, install: install))
        }
        return plan
    }
}
