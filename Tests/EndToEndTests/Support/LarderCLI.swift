import Foundation
import LarderTestSupport
import Testing

/// Runs a one-shot `larder` subcommand (precache, status...) to completion.
enum LarderCLI {
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `larder ARGUMENTS` (or another `executable` of this build) to completion; with a
    /// `timeout`, a process still running then is terminated (so a command expected to exit at
    /// once cannot hang the suite). The proxy variables of the test's own environment are removed
    /// (Larder would honour them), and `environment` is added.
    static func run(
        _ arguments: [String], executable: String = LarderProcess.binary, environment: [String: String] = [:], timeout: Duration? = nil
    ) async throws -> Result {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for name in LarderProcess.proxyVariables {
            merged.removeValue(forKey: name)
        }
        process.environment = merged.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let watchdog = timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                process.terminate()
            }
        }
        defer { watchdog?.cancel() }
        async let stdout = onThread { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = onThread { err.fileHandleForReading.readDataToEndOfFile() }
        let (outData, errData) = await (stdout, stderr)
        await onThread { process.waitUntilExit() }
        return Result(
            exitCode: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
    }
}

/// The demo site and its games.txt, pointed at a test origin's port.
enum DemoSite {
    static let root = LarderProcess.packageRoot.appendingPathComponent("Examples/site").path

    /// Examples/games.txt with the demo origin's address replaced by `origin`.
    static func gamesList(for originBaseURL: String, in directory: String) throws -> String {
        let text = try String(contentsOfFile: LarderProcess.packageRoot.appendingPathComponent("Examples/games.txt").path, encoding: .utf8)
        let path = directory + "/games.txt"
        try text.replacingOccurrences(of: "http://127.0.0.1:8000", with: originBaseURL).write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every file a manifest of the demo lists, as site-relative paths (shell, flipart, wordbox).
    static func listedFiles() throws -> [String] {
        var files: [String] = []
        for (manifest, base) in [
            ("shell/offline.meta.json", ""), ("games/flipart/offline.meta.json", "games/"), ("games/wordbox/offline.meta.json", "games/"),
        ] {
            let data = try Data(contentsOf: URL(fileURLWithPath: self.root + "/" + manifest))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            files += (object?["files"] as? [String] ?? []).map { base + $0 }
        }
        return files
    }

    /// Expects every listed file and the pages of the demo answered by the proxy at `proxy` as
    /// cache hits, with the bytes the site holds (the origin may be stopped).
    static func expectServedFromCache(origin: TestOrigin, proxy: String) async throws {
        for path in try Self.listedFiles() + ["index.html", "about.html", "runtime.html", "games/flipart/offline.meta.json"] {
            let response = try await Curl.run(origin.url("/" + path), proxy: proxy)
            let expected = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + path))
            #expect(response.status == 200, "\(path)")
            #expect(Bytes(response.body) == Bytes(expected), "\(path) differs")
            #expect(response.header("cache-status")?.hasPrefix("larder; hit") == true, "\(path): \(response.header("cache-status") ?? "-")")
        }
    }
}
