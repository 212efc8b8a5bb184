import Foundation
import LarderHTTP
import Testing

/// `--config FILE`: a bad file stops the proxy from starting; a good one is used.
@Suite("End to end: config file")
struct ConfigTests {
    @Test("larder serve --config with a bad file exits 2, naming the file, line and key path on stderr")
    func badConfig() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bad.json"
        try """
        {
          "routes": [
            { "match": "*.js", "strategy": "cache-first" },
            { "match": "*.html", "strategy": "cache-frist" }
          ]
        }
        """.write(toFile: path, atomically: true, encoding: .utf8)

        let result = try await LarderCLI.run(
            ["serve", "--port", "0", "--cache-dir", directory + "/cache", "--config", path],
            timeout: .seconds(60)
        )
        #expect(result.exitCode == 2, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stderr.contains(#"\#(path):4: routes[1].strategy: expected one of http, cache-first"#))
        #expect(result.stderr.contains(#"but found "cache-frist""#))
        #expect(!result.stdout.contains("listening"))
    }

    @Test("larder serve --config with a missing file exits 2")
    func missingConfig() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await LarderCLI.run(
            ["serve", "--port", "0", "--cache-dir", directory, "--config", directory + "/none.json"],
            timeout: .seconds(60)
        )
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("\(directory)/none.json: no readable file there"))
    }

    @Test("larder precache --config with a bad file exits 2 before fetching anything")
    func badPrecacheConfig() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = directory + "/games.txt"
        try "http://127.0.0.1:9/games/flipart\n".write(toFile: list, atomically: true, encoding: .utf8)
        let path = directory + "/larder.json"
        try #"{"precache": {"exclude": "*.map"}}"#.write(toFile: path, atomically: true, encoding: .utf8)

        let result = try await LarderCLI.run(
            ["precache", list, "--cache-dir", directory + "/cache", "--config", path],
            timeout: .seconds(60)
        )
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains(#"\#(path):1: precache.exclude: expected an array of URL globs but found "*.map""#))
    }

    @Test("a good config starts the proxy; its maxSize applies unless --max-size is given")
    func goodConfig() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/larder.json"
        try String(contentsOf: LarderProcess.packageRoot.appendingPathComponent("Manifests/samples/larder.json"), encoding: .utf8)
            .write(toFile: path, atomically: true, encoding: .utf8)
        // The body file its declared requests name, found next to it.
        try String(contentsOf: LarderProcess.packageRoot.appendingPathComponent("Manifests/samples/today-query.json"), encoding: .utf8)
            .write(toFile: directory + "/today-query.json", atomically: true, encoding: .utf8)

        try await withProxy(arguments: ["--config", path]) { larder, origin in
            origin.setRoute("/page", .text("hello"))
            let response = try await Curl.run(origin.url("/page"), proxy: larder.proxyURL)
            #expect(response.status == 200)
            #expect(response.text == "hello")
            let maxSize = try await Self.maxSize(larder)
            #expect(maxSize == 4 << 30, "the sample's maxSize is 4GiB")
        }
        try await withProxy(arguments: ["--config", path, "--max-size", "1MiB"]) { larder, _ in
            let maxSize = try await Self.maxSize(larder)
            #expect(maxSize == 1 << 20, "--max-size wins over the file")
        }
    }

    @Test("larder purge --config names entries by the proxy's ignoreQueryParameters; larder status --config shows its maxSize")
    func purgeAndStatusWithConfig() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/larder.json"
        try #"{"ignoreQueryParameters": ["v"], "maxSize": "3MiB"}"#.write(toFile: path, atomically: true, encoding: .utf8)

        try await withProxy(arguments: ["--config", path]) { larder, origin in
            origin.setRoute("/app.js", .text("console.log(1)", headers: [("Cache-Control", "max-age=3600")]))
            let fetched = try await Curl.run(origin.url("/app.js?v=3"), proxy: larder.proxyURL)
            #expect(fetched.status == 200)
            let cache = larder.cacheDirectory
            await entriesStored(in: larder)

            // Without the config, `?v=4` is part of the key: nothing by that name is cached.
            let plain = try await LarderCLI.run(["purge", "--cache-dir", cache, origin.url("/app.js?v=4")])
            #expect(plain.exitCode == 1)
            #expect(plain.stderr.contains("Not cached: \(origin.url("/app.js?v=4"))"))

            let status = try await LarderCLI.run(["status", "--json", "--cache-dir", cache, "--proxy", "none", "--config", path])
            #expect(status.exitCode == 0, "\(status.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
            let store = report["store"] as? [String: Any] ?? [:]
            #expect(store["maxSize"] as? Int == 3 << 20)
            #expect(store["entries"] as? Int == 1)

            let purged = try await LarderCLI.run(["purge", "--cache-dir", cache, "--config", path, origin.url("/app.js?v=4")])
            #expect(purged.exitCode == 0, "\(purged.stderr)")
            #expect(purged.stdout.contains("Removed \(origin.url("/app.js"))"))
            // The proxy trusts what it looked up for up to a second before it sees another process's purge.
            origin.resetRecords()
            let deadline = ContinuousClock.now + .seconds(10)
            while origin.requests("/app.js").isEmpty, ContinuousClock.now < deadline {
                let refetched = try await Curl.run(origin.url("/app.js?v=3"), proxy: larder.proxyURL)
                #expect(refetched.text == "console.log(1)")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(origin.requests("/app.js").count == 1, "the purged entry is fetched again")

            let bad = try await LarderCLI.run(["purge", "--cache-dir", cache, "--config", directory + "/none.json", "--all"])
            #expect(bad.exitCode == 2)
            #expect(bad.stderr.contains("\(directory)/none.json: no readable file there"))
        }
    }

    /// The budget the running proxy reports on /dev/offline.json.
    private static func maxSize(_ larder: LarderProcess) async throws -> Int? {
        let response = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        let report = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (report?["store"] as? [String: Any])?["maxSize"] as? Int
    }
}
