// Larder inside an app, with a command line standing in for the app (docs/EMBEDDING.md): start
// Larder on a free port over a temporary cache, fetch a page through it twice (a miss, then a
// hit), precache a game, answer from the cache in offline mode, print the status, stop.
//
//   swift run EmbeddedLarder        # serves Examples/site itself on a free port, then as above
//   swift run EmbeddedLarder URL    # fetches this http:// URL instead, and precaches nothing
//
// An app would point its web view at the port (docs/EMBEDDING.md); here LarderTestSupport's
// `ProxiedGet` sends what a browser sends. Exits 0 when every step did what it should, else 1.

import Foundation
import LarderEmbedded
import LarderTestSupport

@main
struct EmbeddedLarder {
    static func main() async {
        do {
            try await self.run(url: CommandLine.arguments.dropFirst().first)
        } catch {
            FileHandle.standardError.write(Data("EmbeddedLarder: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(url given: String?) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-larder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // Without a URL, an origin of our own: the demo site, every file fresh for ten minutes.
        var origin: TestOrigin?
        if given == nil {
            let site = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "site")
            origin = try await TestOrigin.start()
            origin?.serveDirectory(site.path, cacheControl: "max-age=600")
        }
        guard let page = given ?? origin?.url("/about.html") else { return }

        let larder = Larder(configuration: .init(cacheDirectory: cache))
        let port = try await larder.start()
        say("listening on 127.0.0.1:\(port) (cache: \(cache))")

        let first = try await ProxiedGet.fetch(page, proxyPort: port)
        say("first fetch: \(describe(first))")
        // Larder commits what it stored just after the answer has gone out.
        var status = try await larder.status()
        for _ in 0..<200 where status.store.entries == 0 {
            try await Task.sleep(for: .milliseconds(50))
            status = try await larder.status()
        }
        let second = try await ProxiedGet.fetch(page, proxyPort: port)
        say("second fetch: \(describe(second))")

        if let origin {
            guard first.status == 200, second.headers.first(name: "Cache-Status")?.contains("hit") == true else {
                throw ExampleFailure("expected the page fetched, then answered from the cache")
            }
            let job = try larder.precache(lines: [origin.url("/games/flipart")])
            let report = try await larder.precacheReport(job)
            for game in report.games {
                say("precache: \(game.slug) \(game.state.rawValue), \(game.filesCached) of \(game.filesListed) files")
            }
            guard report.succeeded else { throw ExampleFailure("the precache did not succeed") }
            try larder.setOffline(true)
            let offline = try await ProxiedGet.fetch(origin.url("/games/flipart/index.html"), proxyPort: port)
            say("offline fetch of a precached file: \(describe(offline))")
            guard offline.status == 200 else { throw ExampleFailure("offline, the precached file was not served") }
        }

        status = try await larder.status()
        let answers = status.answers.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
        say(
            "status: \(status.proxyURL), \(status.store.entries) entries, \(status.store.bodyBytes) bytes, "
                + "\(status.store.precachedEntries) precached; answers: \(answers.joined(separator: ", "))")
        try await larder.stop()
        say("stopped")
        try await origin?.stop()
    }

    static func describe(_ answer: ProxiedGet) -> String {
        "\(answer.status), \(answer.body.count) bytes, Cache-Status: \(answer.headers.first(name: "Cache-Status") ?? "none")"
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// A step that did not do what it should.
struct ExampleFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
