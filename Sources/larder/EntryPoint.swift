import ArgumentParser
import Foundation
import LarderConfig

/// Runs the command line; usage errors (a bad config file among them) exit with status 2, as
/// docs/FORMATS.md (larder.json) says of every subcommand.
@main
enum EntryPoint {
    static func main() async {
        do {
            var command = try LarderCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConfigFileError {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            LarderCommand.exit(withError: ExitCode(2))
        } catch {
            let code = LarderCommand.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((LarderCommand.fullMessage(for: error) + "\n").utf8))
                LarderCommand.exit(withError: ExitCode(2))
            }
            LarderCommand.exit(withError: error)
        }
    }
}

/// `larder`: the root command.
struct LarderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder",
        abstract: "A local caching proxy that keeps web apps and games working offline.",
        discussion: """
            Point a browser or webview at the proxy (default 127.0.0.1:8080). Larder keeps what \
            it serves and answers from its cache when the network fails.
            """,
        subcommands: [
            ServeCommand.self, PrecacheCommand.self, StatusCommand.self, QueueCommand.self, PurgeCommand.self, VerifyCommand.self,
            PackCommand.self,
            CACommand.self, DebugCommand.self,
        ],
        defaultSubcommand: nil
    )
}
