import ArgumentParser
import Foundation
import LarderStore

/// `larder verify`: checks every entry against its body file, and optionally repairs.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every cached entry against its body file.",
        discussion: """
            Checks that each entry's body file exists, has the indexed size and the SHA-256 it is \
            named by; also reports body files no entry references and temporary files left by an \
            interrupted write. Exits 0 when all is well (or all was repaired), 1 when problems remain.

            Examples:
              larder verify
              larder verify --repair     # remove broken entries, orphan bodies, stale temporary files
            """
    )

    @Flag(help: "Remove broken entries, orphan body files and stale temporary files.")
    var repair = false

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    func run() async throws {
        let directory = self.cacheDirectory.resolved()
        let store = try CommandSupport.openStore(directory)
        let report: VerificationReport
        do {
            report = try await store.verifyEntries(repair: self.repair)
        } catch {
            try? store.close()
            throw CommandFailure("cannot verify \(directory): \(error)")
        }
        try? store.close()
        var output = ""
        for problem in report.problems {
            output += "\(problem)\n"
        }
        let repaired = report.problems.filter(\.repaired).count
        output += "Checked \(report.checkedEntries) entries (\(ByteSize(bytes: report.checkedBytes)) hashed): "
        if report.problems.isEmpty {
            output += "no problems.\n"
        } else {
            output += "\(report.problems.count) problems, \(repaired) repaired.\n"
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        if !report.isClean {
            if !self.repair {
                FileHandle.standardError.write(Data("Run `larder verify --repair` to remove what is broken.\n".utf8))
            }
            throw ExitCode(1)
        }
    }
}
