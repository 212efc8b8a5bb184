import ArgumentParser
import Foundation
import LarderDevOffline
import LarderHTTP
import LarderStore

/// `larder queue`: the offline write queue (writes kept while their origin could not take them).
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List, retry, drop or export the writes Larder queued while their origin could not take them.",
        discussion: """
            Works while `larder serve` runs on the same cache directory: a running proxy tries a
            retried write in its place, when its origin's wait (if any) ends.

            Examples:
              larder queue list
              larder queue retry 42       # a dead letter goes back to pending, in its place
              larder queue drop 42        # never delivered
              larder queue export --output writes.jsonl
            """,
        subcommands: [List.self, Retry.self, Drop.self, Export.self],
        defaultSubcommand: List.self
    )

    /// `larder queue list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List queued writes per origin, pending first, then dead letters.")

        @Flag(help: "Print JSON (as /dev/offline.json's writeQueue) instead of text.")
        var json = false

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let store = try CommandSupport.openStore(self.cacheDirectory.resolved())
            defer { try? store.close() }
            // Every write: the queue is bounded (queue.maxWrites), and this lists it all.
            let now = Date()
            let report = WriteQueueReport(totals: try await store.queuedWriteTotals(), page: try await store.queuedWrites(), now: now)
            if self.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
                return
            }
            print(QueueText(report: report, now: now).text, terminator: "")
        }
    }

    /// `larder queue retry ID...`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Put dead-lettered writes back in their origin's queue (pending writes are retried as they are).")

        @Argument(help: ArgumentHelp("Ids of queued writes (see larder queue list).", valueName: "id"))
        var ids: [Int64]

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            try await QueueCommand.each(self.ids, in: self.cacheDirectory) { store, id in
                try await store.retryWrite(id: id) ? "Write \(id) is pending again." : nil
            }
        }
    }

    /// `larder queue drop ID...`.
    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "drop", abstract: "Remove queued writes; they are never delivered.")

        @Argument(help: ArgumentHelp("Ids of queued writes (see larder queue list).", valueName: "id"))
        var ids: [Int64]

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            try await QueueCommand.each(self.ids, in: self.cacheDirectory) { store, id in
                try await store.dropWrite(id: id) ? "Dropped write \(id)." : nil
            }
        }
    }

    /// `larder queue export`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every queued write, body included, as JSON lines (one object per write, in queue order).",
            discussion: """
                Each line: id, origin, method, url, headers ([name, value] pairs), body (base64; null with \
                bodyError when it cannot be read), state, createdAt, attempts, lastError, deadReason. \
                Credentials (Authorization, Cookie, headers named like tokens, passwords or keys, and \
                query parameters such as access_token or key) are written as "[redacted]" unless \
                --include-credentials is given (the rule: docs/SERVING.md, "What is private and where \
                it is kept"); the file is created readable by its owner only. The queue is not changed.
                """
        )

        @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "Export credentials (Authorization, Cookie, token headers and query parameters) as they are.")
        var includeCredentials = false

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let store = try CommandSupport.openStore(self.cacheDirectory.resolved())
            defer { try? store.close() }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            var data = Data()
            for write in try await store.queuedWrites() {
                var body: String?
                var bodyError: String?
                do {
                    body = Data(try await store.writeBody(write)).base64EncodedString()
                } catch {
                    // One damaged write does not keep the others from being exported.
                    bodyError = "\(error)"
                }
                let fields = self.includeCredentials ? write.headers : CredentialRedaction.redacting(write.headers)
                let url = self.includeCredentials ? write.url : CredentialRedaction.redactingQuery(of: write.url)
                let line = ExportedWrite(
                    id: write.id, origin: write.origin, method: write.method, url: url, headers: fields.map { [$0.name, $0.value] },
                    body: body,
                    bodyError: bodyError, state: write.state.rawValue, createdAt: write.createdAt, attempts: write.attempts,
                    // A failed delivery's error names the URL it was sent to.
                    lastError: write.lastError?.replacingOccurrences(of: write.url, with: url), deadReason: write.deadReason)
                data += try encoder.encode(line) + Data("\n".utf8)
            }
            if let output = self.output {
                // Owner-only: the bodies are the user's data, and may hold what the headers did.
                guard FileManager.default.createFile(atPath: output, contents: data, attributes: [.posixPermissions: 0o600]) else {
                    throw CommandFailure("\(output): cannot write it")
                }
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }

    /// Applies `change` to each write in `ids`, printing what it says; fails naming the ids no
    /// queued write has (`change` answered nil).
    static func each(_ ids: [Int64], in cacheDirectory: CacheDirectoryOption, _ change: (Store, Int64) async throws -> String?)
        async throws
    {
        let store = try CommandSupport.openStore(cacheDirectory.resolved())
        defer { try? store.close() }
        var unknown: [Int64] = []
        for id in ids {
            if let done = try await change(store, id) {
                print(done)
            } else {
                unknown.append(id)
            }
        }
        if !unknown.isEmpty {
            throw CommandFailure("no queued write has the id \(unknown.map(String.init).joined(separator: ", "))")
        }
    }

    /// One line of `larder queue export`.
    struct ExportedWrite: Encodable {
        var id: Int64
        var origin: String
        var method: String
        var url: String
        var headers: [[String]]
        var body: String?
        var bodyError: String?
        var state: String
        var createdAt: Date
        var attempts: Int
        var lastError: String?
        var deadReason: String?
    }
}

/// The text `larder queue list` (and `larder status`) prints for the write queue.
struct QueueText {
    let report: WriteQueueReport
    /// The moment the times are told relative to.
    let now: Date

    var text: String {
        guard !self.report.origins.isEmpty else { return "Queued writes: none\n" }
        var header =
            "Queued writes: \(self.report.pending) pending, \(self.report.deadLetters) dead-lettered, \(HumanFormat.bytes(self.report.bytes ?? 0))"
        if let maxWrites = self.report.maxWrites, let maxBytes = self.report.maxBytes {
            header += " (limit \(maxWrites) writes, \(HumanFormat.bytes(maxBytes)))"
        }
        var lines = [header]
        for origin in self.report.origins {
            lines.append("  \(origin.origin): \(origin.pending) pending, \(origin.deadLetters) dead-lettered")
            for write in origin.writes {
                var line =
                    "    #\(write.id) \(write.state) \(write.method) \(write.url)  queued \(HumanFormat.relative(write.createdAt, now: self.now))"
                if write.attempts > 0 { line += ", \(write.attempts) attempt\(write.attempts == 1 ? "" : "s")" }
                lines.append(line)
                if let why = write.deadReason ?? write.lastError {
                    lines.append("        \(why)")
                }
            }
            let unlisted = origin.pending + origin.deadLetters - origin.writes.count
            if unlisted > 0 { lines.append("    ... \(unlisted) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
