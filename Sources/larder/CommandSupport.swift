import ArgumentParser
import Foundation
import LarderStore
import LarderUpstream
import Logging

/// `--upstream-ca`, shared by the commands that fetch from upstream.
struct UpstreamCAOption: ParsableArguments {
    @Option(
        name: .customLong("upstream-ca"),
        help: ArgumentHelp("A PEM file of CA certificates to trust upstream, besides the system's.", valueName: "file")
    )
    var path: String?

    /// What upstream TLS trusts, for every kind of upstream connection.
    var trust: UpstreamTrust {
        UpstreamTrust(additionalCAFile: self.path)
    }

    func validate() throws {
        if let path, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--upstream-ca \(path): no readable file there.")
        }
    }
}

/// What every long-running command does the same way.
enum CommandSupport {
    /// Checks a `--log-level` value.
    static func validateLogLevel(_ name: String) throws {
        guard Logger.Level(rawValue: name) != nil else {
            throw ValidationError("--log-level '\(name)' is not one of trace, debug, info, notice, warning, error, critical.")
        }
    }

    /// Sends logs to standard error at the given level.
    static func bootstrapLogging(_ name: String) {
        let level = Logger.Level(rawValue: name) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// Opens the cache directory, or fails with a message naming it.
    static func openStore(_ directory: String) throws -> Store {
        do {
            return try Store(directory: directory, logger: Logger(label: "larder.store"))
        } catch {
            throw CommandFailure("cannot open the cache directory \(directory): \(error)")
        }
    }

    /// Lowers this process's CPU priority to the nice value `niceness`, unless it is lower already.
    ///
    /// On Linux a nice value belongs to each thread, and a new thread takes its creator's: every
    /// thread running now is lowered, so every later one is too.
    static func lowerCPUPriority(to niceness: Int32) {
        #if os(Linux)
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.compactMap { id_t($0) } ?? [0]
        #else
            let which = PRIO_PROCESS
            let threads: [id_t] = [0]
        #endif
        for thread in threads {
            errno = 0
            let current = getpriority(which, thread)
            guard errno == 0, current < niceness else { continue }
            _ = setpriority(which, thread, niceness)
        }
    }
}
