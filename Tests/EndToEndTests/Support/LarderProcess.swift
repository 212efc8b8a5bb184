import Foundation
import LarderHTTP
import LarderTestSupport
import Synchronization
import Testing

/// The real `larder` binary, started as a child process for end-to-end tests.
final class LarderProcess: @unchecked Sendable {
    // @unchecked: the pipe, port and host are only touched from the test task; output is
    // collected in `collected`.
    let process = ChildProcess()
    let cacheDirectory: String
    private(set) var port = 0
    private(set) var host = "127.0.0.1"
    private let output = Pipe()
    private let collected = Mutex(Data())
    /// Whether the output was read to its end (the child and its copies of the pipe are gone).
    private let outputEnded = Mutex(false)

    /// The package root, from this file's location.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `larder` binary of this build (or `$LARDER_BIN`).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["LARDER_BIN"] { return path }
        return packageRoot.appendingPathComponent(".build/debug/larder").path
    }

    /// A fresh temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory(_ label: String = "larder-e2e") -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The environment variables that would send Larder's upstream requests through a parent proxy
    /// (tests give `--upstream-proxy` instead).
    static let proxyVariables = [
        "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// Starts `larder serve --port 0 --cache-dir DIR ARGS`, with `environment` added to the test's
    /// own, and waits until it listens.
    init(serve arguments: [String] = [], cacheDirectory: String? = nil, environment added: [String: String] = [:]) async throws {
        self.cacheDirectory = cacheDirectory ?? Self.temporaryDirectory()
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw E2EError("no larder binary at \(Self.binary): run `swift build --build-tests` first (scripts/test does)")
        }
        self.process.executableURL = URL(fileURLWithPath: Self.binary)
        self.process.arguments = ["serve", "--port", "0", "--cache-dir", self.cacheDirectory, "--log-level", "notice"] + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in Self.proxyVariables {
            environment.removeValue(forKey: name)
        }
        self.process.environment = environment.merging(added) { $1 }
        self.process.standardOutput = self.output
        self.process.standardError = self.output
        try self.process.run()
        // Blocking reads on a thread of their own, not `readabilityHandler`: tearing down the
        // libdispatch read source that installs raced the descriptor's close and crashed the whole
        // test process in libdispatch's event loop on Linux (once in CI). The parent's write end is
        // closed at spawn (ChildProcess), so the reads end when the child exits.
        let reading = self.output.fileHandleForReading
        Thread.detachNewThread { [self] in
            // `read(2)` returns what has arrived (FileHandle's reads wait for a full count).
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                self.collected.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            self.outputEnded.withLock { $0 = true }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = self.log
            if let range = text.range(of: #"listening on http://([^ ]+):(\d+)"#, options: .regularExpression) {
                let match = String(text[range]).replacingOccurrences(of: "listening on http://", with: "")
                let colon = match.lastIndex(of: ":")!
                self.host = String(match[..<colon])
                self.port = Int(match[match.index(after: colon)...]) ?? 0
                return
            }
            if !self.process.isRunning {
                throw E2EError("larder exited with \(self.process.terminationStatus) before listening:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        self.process.terminate()
        throw E2EError("larder did not start listening within 60 s:\n\(self.log)")
    }

    /// Everything the process printed so far.
    var log: String {
        self.collected.withLock { String(decoding: $0, as: UTF8.self) }
    }

    /// `http://127.0.0.1:PORT`.
    var proxyURL: String { "http://127.0.0.1:\(self.port)" }

    /// Resident set size of the process, in bytes (from /proc).
    var residentBytes: Int64 {
        self.statusBytes("VmRSS:")
    }

    /// The resident anonymous memory of the process (heap, stacks), in bytes: what holding data
    /// grows, without the pages of the binary that are faulted in as new code first runs.
    var anonymousBytes: Int64 {
        self.statusBytes("RssAnon:")
    }

    /// A size in kB from a line of /proc/PID/status, in bytes; 0 when it cannot be read.
    private func statusBytes(_ field: String) -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/\(self.process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int64($0) }.first ?? 0
        return kilobytes * 1024
    }

    /// The names of the process's threads (from /proc), e.g. `NIO-ELT-0-#0` for an event loop.
    var threadNames: [String] {
        let tasks = "/proc/\(self.process.processIdentifier)/task"
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return ids.compactMap { id in
            (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Sends `signal` and waits for exit; returns the exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(20)) async -> Int32 {
        if self.process.isRunning {
            kill(self.process.processIdentifier, signal)
        }
        let deadline = ContinuousClock.now + timeout
        while self.process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
            Issue.record("larder did not exit within \(timeout) of signal \(signal)")
        }
        // What the child wrote last is in the log once the reads have reached its end.
        let drained = ContinuousClock.now + .seconds(5)
        while !self.outputEnded.withLock({ $0 }) && ContinuousClock.now < drained {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.process.terminationStatus
    }

    /// Stops the process and removes its cache directory.
    func tearDown() async {
        await self.stop()
        try? FileManager.default.removeItem(atPath: self.cacheDirectory)
    }
}

/// A failure in the test harness itself.
struct E2EError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
