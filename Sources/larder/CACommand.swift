import ArgumentParser
import Foundation
import LarderProxy

/// `larder ca`: Larder's local certificate authority, which signs the certificates it shows
/// browsers for HTTPS sites.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Show or export Larder's local CA certificate (trust it once to browse HTTPS through Larder).",
        subcommands: [PathCommand.self, ExportCommand.self]
    )

    /// `larder ca path`.
    struct PathCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path",
            abstract: "Print the path of the CA certificate (PEM), creating the CA on first use."
        )

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() throws {
            let authority = try CACommand.authority(self.cacheDirectory.resolved())
            print(authority.certificatePath)
        }
    }

    /// `larder ca export`.
    struct ExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the CA certificate to standard output or a file."
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case pem, der
        }

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        @Option(help: "pem or der.")
        var format: Format = .pem

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            let authority = try CACommand.authority(self.cacheDirectory.resolved())
            let data = self.format == .pem ? Data(try authority.pem().utf8) : Data(try authority.der())
            if let output = self.output {
                do {
                    try data.write(to: URL(fileURLWithPath: output))
                } catch {
                    throw CommandFailure("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }

    static func authority(_ directory: String) throws -> CertificateAuthority {
        do {
            return try CertificateAuthority.loadOrCreate(directory: directory, now: Date())
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
