import ArgumentParser
import Foundation
import LarderDevOffline
import LarderHTTP
import LarderStore
import Logging

/// `larder purge`: removes entries from the cache, by URL, by game, all runtime entries, or all.
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove entries from the cache.",
        discussion: """
            Give exactly one of: URLs, --game ROOT, --runtime, --all. Works while `larder serve` \
            runs on the same cache directory.

            Examples:
              larder purge https://cdn.example/games/flipart/assets/index-Bx12.js
              larder purge --config larder.json 'https://cdn.example/app.js?v=3'   # ignoreQueryParameters as the proxy's
              larder purge --game https://cdn.example/games/flipart
              larder purge --runtime     # keep precached games, drop what browsing stored
              larder purge --all         # empty the cache (no question asked)
            """
    )

    @Argument(help: ArgumentHelp("URLs of entries to remove.", valueName: "url"))
    var urls: [String] = []

    @Option(help: ArgumentHelp("Purge the game with this root URL (or slug): its entries that nothing else lists.", valueName: "root"))
    var game: String?

    @Flag(help: "Remove every runtime entry; precached entries stay.")
    var runtime = false

    @Flag(help: "Remove every entry, game and page record.")
    var all = false

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @OptionGroup var config: ConfigFileOption

    func validate() throws {
        let modes = [!self.urls.isEmpty, self.game != nil, self.runtime, self.all].filter { $0 }.count
        guard modes == 1 else {
            throw ValidationError(
                modes == 0
                    ? "Say what to purge: URLs, --game ROOT, --runtime or --all."
                    : "Give only one of: URLs, --game ROOT, --runtime, --all."
            )
        }
        for url in self.urls {
            do {
                _ = try CacheKey(url: url)
            } catch {
                throw ValidationError("'\(url)' is not an http(s) URL: \(error)")
            }
        }
        if let game = self.game, game.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--game needs a game root URL or slug.")
        }
    }

    func run() async throws {
        // The proxy's ignoreQueryParameters decide which entry a URL names.
        let configFile = try self.config.load()
        let directory = self.cacheDirectory.resolved()
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw CommandFailure("there is no cache at \(directory) (nothing to purge)")
        }
        var logger = Logger(label: "larder.store")
        logger.logLevel = .error
        let store: Store
        do {
            store = try Store(directory: directory, logger: logger)
        } catch {
            throw CommandFailure("cannot open the cache directory \(directory): \(error)")
        }
        defer { try? store.close() }

        if let game = self.game {
            try await self.purgeGame(game, store: store)
        } else if self.runtime {
            let removed = try await store.removeRuntimeEntries()
            print(
                "Removed \(HumanFormat.count(removed)) runtime \(removed == 1 ? "entry" : "entries") from \(store.directory); precached entries stay."
            )
        } else if self.all {
            let totals = try await store.totals()
            let games = try await store.games().count
            let pages = try await store.pages().count
            let removed = try await store.removeAllEntries()
            print(
                "Removed everything from \(store.directory): \(HumanFormat.count(removed)) \(removed == 1 ? "entry" : "entries") (\(HumanFormat.bytes(totals.bytes))), \(games) game record\(games == 1 ? "" : "s"), \(pages) page record\(pages == 1 ? "" : "s")."
            )
        } else {
            try await self.purgeURLs(store: store, filter: configFile.queryFilter)
        }
    }

    private func purgeURLs(store: Store, filter: QueryParameterFilter) async throws {
        var missing = 0
        for url in self.urls {
            let key = try CacheKey(url: url, filter: filter)
            let result = try await store.purgeEntry(key)
            if result.removed {
                var line = "Removed \(key.rawValue)"
                if !result.gamesAffected.isEmpty {
                    line += " (no longer ready offline: \(result.gamesAffected.joined(separator: ", ")))"
                }
                print(line)
            } else {
                missing += 1
                FileHandle.standardError.write(Data("Not cached: \(key.rawValue)\n".utf8))
            }
        }
        if missing > 0 {
            throw ExitCode(1)
        }
    }

    private func purgeGame(_ root: String, store: Store) async throws {
        var record = try await store.game(root: root)
        if record == nil, !root.contains("://") {
            record = try await store.game(slug: root)
        }
        guard let record else {
            let known = try await store.games().map { "  \($0.root) (\($0.slug))" }
            let list = known.isEmpty ? "No game is recorded." : "Recorded games:\n" + known.joined(separator: "\n")
            throw CommandFailure("no game with root \(root) is recorded in \(store.directory). \(list)")
        }
        guard let removed = try await store.purgeGame(slug: record.slug) else {
            throw CommandFailure("the game \(record.slug) disappeared while purging it")
        }
        let name = record.displayName.map { "\($0) (\(record.slug))" } ?? record.slug
        print(
            "Purged \(name): removed \(HumanFormat.count(removed)) \(removed == 1 ? "entry" : "entries"); it is not ready offline until precached again."
        )
    }
}
