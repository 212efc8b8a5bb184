import Foundation
import Logging
import Synchronization
import Testing

@testable import LarderProxy

/// The log lines a logger wrote.
private final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
}

/// Counts the log lines a logger writes.
private struct CountingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.lines.lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}

@Suite("Store write failures: logged once a minute, counted until storing works")
struct StoreWriteFailuresTests {
    @Test("a burst of failures is one log line, counted and shown; a success ends it")
    func burst() {
        let lines = LogLines()
        let failures = StoreWriteFailures(logger: Logger(label: "test") { _ in CountingLogHandler(lines: lines) }, now: { Date() })
        #expect(!failures.isFailing)
        for index in 0..<9_295 {
            failures.record(StoreTestError(), url: "http://a.example/\(index)")
        }
        #expect(lines.lines.withLock { $0.count } == 1)
        #expect(failures.isFailing)
        #expect(failures.current?.failures == 9_295)
        #expect(failures.current?.lastError == "No space left on device")
        failures.recordSuccess()
        #expect(!failures.isFailing)
        #expect(lines.lines.withLock { $0.last?.hasPrefix("notice storing responses again") } == true)
    }
}

private struct StoreTestError: Error, CustomStringConvertible {
    var description: String { "No space left on device" }
}
