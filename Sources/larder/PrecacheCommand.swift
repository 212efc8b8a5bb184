import ArgumentParser
import Foundation
import LarderDeclaredRequests
import LarderHTTP
import LarderPrecache
import LarderStore
import LarderUpstream
import LarderUpstreamClient
import Logging
import Synchronization

/// `larder precache FILE...`: downloads every page and game asset the lists name.
struct PrecacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "precache",
        abstract: "Download the pages and games listed in games.txt files for offline use.",
        discussion: """
            Each line of a list is a page (page URL, or a URL ending in .html; a page that \
            redirects is followed, each step stored), a manifest URL (ends in \
            offline.meta.json), a game root (its manifest is ROOT/offline.meta.json; GAME page \
            URL adds the page it is played on) or a dated series (series \
            MANIFEST-URL|URL-TEMPLATE [past=N] [future=N] [tz=Area/City]). \
            Manifests are always fetched from the network; files already cached are not \
            downloaded again. Pages and today's series files come first, then the games in \
            list order, then the series' other days. Exit status: 0 when everything is ready, 1 when anything \
            failed, 2 for usage errors.

            Examples:
              larder precache Examples/games.txt
              larder precache games.txt --exclude '*.map' --concurrency 4 --json
              larder precache games.txt --config larder.json   # precache.exclude, allowCrossOrigin, ignoreQueryParameters
              larder precache games.txt --upstream-ca lan-ca.pem # also trust this CA for the origins (a LAN or test origin)
            """
    )

    @Argument(help: ArgumentHelp("games.txt files to precache.", valueName: "file"))
    var files: [String]

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @OptionGroup var config: ConfigFileOption

    @Option(help: "Downloads in flight at once (at most 6 per host).")
    var concurrency = 8

    @Option(name: .customLong("delay-ms"), help: "Milliseconds between the starts of two requests to one host.")
    var delayMilliseconds = 0

    @Option(
        name: .customLong("exclude"),
        help: ArgumentHelp(
            "Leave out manifest files matching this glob (repeatable, added to the config file's precache.exclude; * within a path segment, ** across).",
            valueName: "glob"))
    var excludes: [String] = []

    @Flag(
        name: .customLong("allow-cross-origin"), help: "Let manifests list files on other origins (as allowCrossOrigin in the config file)."
    )
    var allowCrossOrigin = false

    @OptionGroup var upstreamCA: UpstreamCAOption

    @OptionGroup var upstreamProxy: UpstreamProxyOption

    @OptionGroup var upstreamClient: UpstreamClientOption

    @Flag(help: "Print the summary as JSON on standard output.")
    var json = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "warning"

    func validate() throws {
        guard !self.files.isEmpty else { throw ValidationError("Name at least one games.txt file.") }
        for file in self.files where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("\(file): no readable file there.")
        }
        guard (1...256).contains(self.concurrency) else {
            throw ValidationError("--concurrency \(self.concurrency) must be from 1 to 256.")
        }
        guard (0...600_000).contains(self.delayMilliseconds) else {
            throw ValidationError("--delay-ms \(self.delayMilliseconds) must be from 0 to 600000.")
        }
        try CommandSupport.validateLogLevel(self.logLevel)
    }

    func run() async throws {
        let configFile = try self.config.load()
        let parent = try self.upstreamProxy.resolve(configured: configFile.upstreamProxy)
        CommandSupport.bootstrapLogging(self.logLevel)
        UpstreamProxyOption.log(parent, logger: Logger(label: "larder.precache"))
        // Precaching is work for later; a proxy answering the user now must not wait behind it.
        CommandSupport.lowerCPUPriority(to: 10)
        var list = GamesList(entries: [], problems: [])
        for file in self.files {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw CommandFailure("\(file): cannot read it as UTF-8 text (\(error.localizedDescription))")
            }
            list.append(GamesList.parse(text, source: file))
        }
        let directory = self.cacheDirectory.resolved()
        let store = try CommandSupport.openStore(directory)
        PrivateDirectory.warnIfLoose(store.directory, logger: Logger(label: "larder.store"))
        list.add(extraURLs: try await store.extraURLs())
        let (upstream, shutdownUpstream) = try UpstreamClient.makeUpstream(
            try self.upstreamClient.resolve(), configuration: UpstreamConfiguration(trust: self.upstreamCA.trust, proxy: parent),
            logger: Logger(label: "larder.upstream"))
        var options = PrecacheOptions()
        configFile.apply(to: &options)
        options.concurrency = self.concurrency
        options.delayPerHost = .milliseconds(self.delayMilliseconds)
        options.excludes += self.excludes.map(ExcludeGlob.init)
        options.allowCrossOrigin = options.allowCrossOrigin || self.allowCrossOrigin

        let renderer = ProgressRenderer(interactive: isatty(STDERR_FILENO) == 1)
        let runner = PrecacheRunner(store: store, upstream: upstream, options: options, logger: Logger(label: "larder.precache"))
        let declared = DeclaredRequestRunner(
            store: store, upstream: upstream, queryFilter: options.queryFilter, connectTimeout: options.connectTimeout,
            idleTimeout: options.idleTimeout, logger: Logger(label: "larder.precache"))
        // Today's data is needed now: the config's declared requests run in the first tier, with
        // the pages and today's item of every series, before any game.
        let requests = configFile.declaredRequests
        let declaredFailures = DeclaredFailures()
        let report = await runner.run(list, progress: { renderer.handle($0) }) {
            await withTaskGroup(of: Void.self) { group in
                for request in requests {
                    group.addTask {
                        if case .failed(let reason, _) = await declared.run(request) {
                            declaredFailures.add("\(request.name): \(reason)")
                        }
                    }
                }
            }
        }
        let failures = declaredFailures.all
        renderer.finish()
        await shutdownUpstream()
        try? store.close()

        if self.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(report)
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(PrecacheSummary(report: report, cacheDirectory: directory).text.utf8))
        }
        if !configFile.declaredRequests.isEmpty {
            let stored = configFile.declaredRequests.count - failures.count
            var text = "Declared requests: \(stored) of \(configFile.declaredRequests.count) stored\n"
            for failure in failures { text += "  failed \(failure)\n" }
            FileHandle.standardError.write(Data(text.utf8))
        }
        if !report.succeeded || !failures.isEmpty {
            throw ExitCode(1)
        }
    }
}

extension GamesList {
    /// Appends another list's entries and problems, keeping game slugs unique.
    mutating func append(_ other: GamesList) {
        var slugs = Set(self.games.map(\.slug))
        for entry in other.entries {
            guard case .game(var game) = entry else {
                self.entries.append(entry)
                continue
            }
            let base = game.slug
            var suffix = 2
            while slugs.contains(game.slug) {
                game.slug = "\(base)-\(suffix)"
                suffix += 1
            }
            slugs.insert(game.slug)
            self.entries.append(.game(game))
        }
        self.problems += other.problems
    }
}

/// The declared requests that failed in a precache run, collected from its first tier.
private final class DeclaredFailures: Sendable {
    private let failures = Mutex<[String]>([])

    func add(_ failure: String) {
        self.failures.withLock { $0.append(failure) }
    }

    var all: [String] {
        self.failures.withLock { $0 }
    }
}
