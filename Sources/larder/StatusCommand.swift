import ArgumentParser
import Foundation
import LarderDevOffline
import LarderHTTP
import LarderStore
import LarderUpstream
import LarderUpstreamClient
import Logging

/// `larder status`: what the cache holds and which games work offline, read from the cache
/// directory; with the counters of a running proxy when one answers.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the cache holds and which games are ready offline.",
        discussion: """
            Reads the cache directory (it may be in use by `larder serve`). When a proxy answers \
            at --proxy, its state and counters since start are shown too. --json prints the \
            same report as the proxy's /dev/offline.json (without the parts only a proxy knows \
            when none answers).
            """
    )

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @OptionGroup var config: ConfigFileOption

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: ArgumentHelp("A running Larder to ask for its counters, or 'none'.", valueName: "url"))
    var proxy = "http://127.0.0.1:8080"

    func validate() throws {
        guard self.proxy == "none" || self.proxy.hasPrefix("http://") else {
            throw ValidationError("--proxy '\(self.proxy)' must be an http:// URL like http://127.0.0.1:8080, or none.")
        }
    }

    func run() async throws {
        // The config's maxSize gives the budget when no proxy answers to tell its own.
        let configFile = try self.config.load()
        let directory = self.cacheDirectory.resolved()
        let now = Date()
        var report: OfflineReport
        let cacheExists = FileManager.default.fileExists(atPath: directory + "/index.sqlite")
        if cacheExists {
            let store: Store
            do {
                store = try Store(directory: directory, logger: Self.quietLogger)
            } catch {
                throw CommandFailure("cannot open the cache directory \(directory): \(error)")
            }
            report = try await OfflineReport.read(
                from: store, maxSize: configFile.maxSize, now: now, subresources: PageSubresourceCheck(queryFilter: configFile.queryFilter))
            try? store.close()
        } else {
            report = OfflineReport(
                generatedAt: now,
                cacheDirectory: directory,
                store: StoreReport(totals: .zero, maxSize: configFile.maxSize),
                games: [],
                pages: []
            )
        }
        let live = self.proxy == "none" ? nil : await Self.fetchProxyReport(self.proxy)
        if let live {
            report.offline = live.offline
            report.startedAt = live.startedAt
            report.upstreamClient = live.upstreamClient
            report.requests = live.requests
            report.upstream = live.upstream
            if let misses = live.offlineMisses {
                // The proxy's offline misses keep games it knows missed from showing as ready.
                report.add(offlineMisses: misses.groups.flatMap(\.misses).sorted { $0.lastSeen > $1.lastSeen }, capacity: misses.capacity)
            }
            if live.cacheDirectory == report.cacheDirectory {
                report.store.maxSize = live.store.maxSize
                report.store.budgetUsed = live.store.budgetUsed
            }
        }

        if self.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            encoder.dateEncodingStrategy = .iso8601
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
        } else {
            let text = StatusText(
                report: report, cacheExists: cacheExists, proxyURL: self.proxy == "none" ? nil : self.proxy, live: live, now: now)
            print(text.text, terminator: "")
        }
    }

    private static var quietLogger: Logger {
        var logger = Logger(label: "larder.store")
        logger.logLevel = .error
        return logger
    }

    /// The proxy's `/dev/offline.json`, or nil when nothing (or not Larder) answers within a second or two.
    static func fetchProxyReport(_ base: String) async -> OfflineReport? {
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let kind = (try? UpstreamClient.Kind.fromEnvironment(ProcessInfo.processInfo.environment)) ?? .preferred
        guard
            let (upstream, shutdown) = try? UpstreamClient.makeUpstream(
                kind, configuration: UpstreamConfiguration(), logger: Self.quietLogger)
        else { return nil }
        var request = UpstreamRequest(url: trimmed + "/dev/offline.json", headers: [HeaderField(name: "Accept", value: "application/json")])
        request.connectTimeout = .seconds(1)
        request.totalTimeout = .seconds(3)
        let report = try? await Self.report(from: upstream.execute(request))
        await shutdown()
        return report
    }

    /// The report in `response`, nil when it is not a 200 or its body is over 16 MiB.
    private static func report(from response: UpstreamResponse) async throws -> OfflineReport? {
        var body = [UInt8]()
        for try await chunk in response.body {
            body += chunk.readableBytesView
            if body.count > 16 << 20 { return nil }
        }
        guard response.head.status == 200 else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(OfflineReport.self, from: Data(body))
    }
}

/// The text `larder status` prints.
struct StatusText {
    let report: OfflineReport
    /// Whether the cache directory has an index (false: nothing was ever stored there).
    let cacheExists: Bool
    /// The proxy that was asked, if any.
    let proxyURL: String?
    /// What it answered.
    let live: OfflineReport?
    /// The moment the times are told relative to.
    let now: Date

    var text: String {
        var lines: [String] = []
        let store = self.report.store
        lines.append("Cache \(self.report.cacheDirectory)" + (self.cacheExists ? "" : " (none yet: nothing was precached or stored there)"))
        lines.append(
            "  Entries  \(HumanFormat.count(store.entries)), \(HumanFormat.bytes(store.bytes)) (\(HumanFormat.count(store.precachedEntries)) precached, \(HumanFormat.count(store.runtimeEntries)) runtime)"
        )
        if let maxSize = store.maxSize {
            lines.append(
                "  Budget   \(HumanFormat.bytes(store.bytes)) of \(HumanFormat.bytes(maxSize)) (\(HumanFormat.percent(store.bytes, of: maxSize) ?? "0%"))"
            )
        } else if self.live != nil, self.live?.cacheDirectory == self.report.cacheDirectory {
            lines.append("  Budget   none set")
        }

        let (ready, wanted) = self.report.readyCounts
        let skipped = self.report.games.count - wanted
        if self.report.games.isEmpty {
            lines.append("Games: none precached yet (larder precache games.txt)")
        } else {
            lines.append("Games: \(ready) of \(wanted) ready offline" + (skipped > 0 ? ", \(skipped) skipped" : ""))
            let width = min(self.report.games.map { self.label($0).count }.max() ?? 0, 40)
            for game in self.report.games {
                let mark = game.ready ? "✓" : (game.state == .skipped ? "-" : "✗")
                let readiness = game.readiness.padding(toLength: 10, withPad: " ", startingAt: 0)
                let label = self.label(game).padding(toLength: max(width, self.label(game).count), withPad: " ", startingAt: 0)
                var line = "  \(mark) \(readiness) \(label)"
                if game.state != .skipped && game.filesListed > 0 {
                    line +=
                        "  \(game.filesCached) of \(game.filesListed) files, \(HumanFormat.bytes(game.bytes)), precached \(HumanFormat.relative(game.lastPrecache, now: self.now))"
                }
                lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
                if let error = game.lastError, !game.ready, game.state != .skipped {
                    lines.append("      last error: \(error)")
                }
                for file in game.missing {
                    lines.append("      \(file.url): \(file.state)\(file.reason.map { ": \($0)" } ?? "")")
                }
                let unlisted = game.filesMissing - game.missing.count
                if unlisted > 0 {
                    lines.append("      ... \(unlisted) more missing (see /dev/offline/games/\(game.slug))")
                }
                for miss in game.offlineMisses ?? [] {
                    lines.append("      \(miss.url): offline miss (\(miss.reason.rawValue)), add it to precache on /dev/offline")
                }
            }
        }
        if !self.report.pages.isEmpty {
            let cached = self.report.pages.filter(\.isCached).count
            lines.append("Pages: \(cached) of \(self.report.pages.count) cached")
            for page in self.report.pages {
                let mark = page.isCached ? "✓" : "✗"
                lines.append("  \(mark) \(page.url)" + (page.isCached ? "" : "  \(page.state)\(page.reason.map { ": \($0)" } ?? "")"))
            }
        }
        if let declared = self.report.declaredRequests, !declared.isEmpty {
            lines.append("Declared requests:")
            for request in declared {
                let mark = request.state == "fresh" ? "✓" : "✗"
                var line = "  \(mark) \(request.name)  \(request.method) \(request.url.isEmpty ? "(not sent yet)" : request.url)"
                if let success = request.lastSuccess {
                    line += "  stored \(HumanFormat.relative(success, now: self.now))"
                    if let size = request.bodySize { line += ", \(HumanFormat.bytes(size))" }
                } else {
                    line += "  nothing stored yet"
                }
                if let next = request.nextRun { line += "; next run \(HumanFormat.relative(next, now: self.now))" }
                lines.append(line)
                if let error = request.lastError {
                    lines.append("      last error: \(error)")
                }
            }
        }
        lines += self.seriesLines
        if let queue = self.report.writeQueue, !queue.origins.isEmpty {
            lines.append(QueueText(report: queue, now: self.now).text.trimmingCharacters(in: .newlines))
        }
        if let proxyURL = self.proxyURL {
            if let live = self.live {
                let mode = live.offline == true ? "offline mode (never contacts the network)" : "online"
                let since = live.startedAt.map { ", started \(HumanFormat.relative($0, now: self.now))" } ?? ""
                let client = live.upstreamClient.map { ", fetching with \($0)" } ?? ""
                lines.append("Proxy \(proxyURL): \(mode)\(since)\(client)")
                if live.cacheDirectory != self.report.cacheDirectory {
                    lines.append("  (it uses another cache directory: \(live.cacheDirectory))")
                }
                if let requests = live.requests {
                    let ratio = requests.hitRatio.map { "\(Int(($0 * 100).rounded()))%" } ?? "-"
                    lines.append(
                        "  Requests \(requests.hits) hits, \(requests.misses) misses (\(requests.offlineMisses) offline), \(requests.stale) stale, \(requests.errors) errors; hit ratio \(ratio)"
                    )
                }
                for host in live.upstream ?? [] where host.state != "ok" {
                    var line = "  Upstream \(host.host): \(host.state)"
                    if let until = host.backoffUntil { line += " until \(HumanFormat.exact(until))" }
                    if let error = host.lastError { line += " (\(error))" }
                    lines.append(line)
                }
            } else {
                lines.append("Proxy: none answering at \(proxyURL)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func label(_ game: GameReport) -> String {
        game.displayName.map { "\($0) (\(game.slug))" } ?? game.slug
    }
}
