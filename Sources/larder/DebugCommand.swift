import ArgumentParser
import Foundation
import LarderHTTP
import LarderStore
import Logging

/// `larder debug`: tools for developing Larder itself, hidden from help.
struct DebugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Tools for developing Larder (not for everyday use).",
        shouldDisplay: false,
        subcommands: [FillIndexCommand.self]
    )

    /// `larder debug fill-index`: fills a cache with synthetic entries through the store's ordinary
    /// write path, for the /dev/offline render benchmark (Benchmarks/devoffline-render.sh).
    struct FillIndexCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fill-index",
            abstract: "Add synthetic entries (and games listing some of them) to a cache directory."
        )

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        @Option(help: "How many entries to add.")
        var entries = 100_000

        @Option(help: "How many games to record; each lists 100 of the entries, precached.")
        var games = 10

        func validate() throws {
            guard self.entries > 0, self.entries <= 10_000_000 else {
                throw ValidationError("--entries \(self.entries) must be between 1 and 10000000.")
            }
            guard self.games >= 0, self.games * 100 <= self.entries else {
                throw ValidationError("--games \(self.games) needs 100 entries each; --entries is \(self.entries).")
            }
        }

        func run() async throws {
            var logger = Logger(label: "larder.store")
            logger.logLevel = .error
            let store = try Store(directory: self.cacheDirectory.resolved(), logger: logger)
            let started = ContinuousClock.now
            let types = ["application/javascript", "text/css", "image/png", "text/html; charset=utf-8", "application/json", "audio/wav"]
            let extensions = ["js", "css", "png", "html", "json", "wav"]
            let total = self.entries
            let workers = 4
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<workers {
                    group.addTask {
                        var index = worker
                        while index < total {
                            let kind = index % types.count
                            let url = Self.url(index, extension: extensions[kind])
                            // Bodies differ in size and content; a few hundred bytes keeps the fill quick.
                            let body =
                                Array("entry \(index) \(url)\n".utf8)
                                + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 700)
                            let writer = try store.makeBodyWriter()
                            try writer.write(contentsOf: body)
                            let now = Date()
                            let head = StoredResponseHead(
                                url: url,
                                status: 200,
                                headers: [
                                    HeaderField(name: "Content-Type", value: types[kind]),
                                    HeaderField(name: "Content-Length", value: String(body.count)),
                                    HeaderField(name: "Cache-Control", value: "max-age=3600"),
                                ],
                                requestTime: now,
                                responseTime: now
                            )
                            _ = try await writer.commit(
                                key: try CacheKey(url: url), head: head, kind: .runtime, expectedLength: Int64(body.count))
                            index += workers
                        }
                    }
                }
                try await group.waitForAll()
            }

            for game in 0..<self.games {
                let slug = "bench-game-\(game)"
                let indexes = (0..<100).map { game * 100 + $0 }
                let keys = try indexes.map { try CacheKey(url: Self.url($0, extension: extensions[$0 % types.count])) }
                try await store.pin(keys)
                let states = try await store.storedStates(for: keys)
                let files = indexes.map { index in
                    let url = Self.url(index, extension: extensions[index % types.count])
                    return GameFileRecord(key: keys[index - game * 100], url: url, state: .cached)
                }
                let record = GameRecord(
                    slug: slug,
                    root: "https://cdn\(game).example/games/\(slug)",
                    manifestURL: "https://cdn\(game).example/games/\(slug)/offline.meta.json",
                    displayName: "Benchmark game \(game)",
                    state: .ready,
                    filesListed: files.count,
                    filesCached: files.count,
                    bytes: states.values.reduce(0) { $0 + $1.bodySize },
                    lastRun: Date(),
                    lastError: nil,
                    manifestRevision: nil,
                    listOrder: game
                )
                _ = try await store.saveGame(record, files: files)
            }
            let totals = try await store.totals()
            try store.close()
            let elapsed = ContinuousClock.now - started
            print("Added \(total) entries and \(self.games) games in \(elapsed); the cache now holds \(totals.entries) entries.")
        }

        /// A URL shaped like a game asset: ten hosts, a thousand folders.
        static func url(_ index: Int, extension: String) -> String {
            "https://cdn\(index % 10).example/games/game-\(index % 1000)/assets/file-\(index)-\(String(index, radix: 36)).\(`extension`)"
        }
    }
}
