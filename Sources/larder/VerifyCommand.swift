import ArgumentParser
import Foundation
import LarderHTTP
import LarderStore

/// `larder verify`: checks every entry against its body file, and optionally repairs.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every cached entry against its body file.",
        discussion: """
            Checks that each entry's body file exists, has the indexed size and the SHA-256 it is \
            named by. An entry whose body is missing or has the wrong size is never served; a \
            body changed in place (same size, other bytes) is found only here, by its hash, and \
            `--repair` removes what is damaged. Also lists \
            leftovers of interrupted runs (a crash or a kill): body files no entry references and \
            temporary files no writer holds. They are harmless (never served), `larder serve` \
            removes them in the background when it starts, and so does `--repair`. Safe to run \
            beside a running `larder serve` or `larder precache`. Exits 0 when no entry is damaged \
            (or every damaged one was repaired), 1 otherwise.

            Examples:
              larder verify
              larder verify --repair     # remove damaged entries and leftovers
            """
    )

    @Flag(help: "Remove damaged entries, orphan body files and leftover temporary files.")
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
        let damage = report.damage
        let leftovers = report.leftovers
        if !damage.isEmpty {
            output += "Damaged entries:\n"
            for problem in damage {
                output += "  \(problem)\n"
            }
        }
        if !leftovers.isEmpty {
            output += "Leftovers of an interrupted run (harmless, never served):\n"
            for problem in leftovers {
                output += "  \(problem)\n"
            }
        }
        output += "Checked \(report.checkedEntries) entries (\(ByteSize(bytes: report.checkedBytes)) hashed): "
        if damage.isEmpty {
            output += "no damaged entries"
        } else {
            output += "\(damage.count) damaged, \(damage.filter(\.repaired).count) repaired"
        }
        if !leftovers.isEmpty {
            output += "; \(leftovers.count) leftover files\(self.repair ? " removed" : "")"
        }
        output += ".\n"
        FileHandle.standardOutput.write(Data(output.utf8))
        if !report.isClean {
            if !self.repair {
                FileHandle.standardError.write(Data("Run `larder verify --repair` to remove what is broken.\n".utf8))
            }
            throw ExitCode(1)
        }
    }
}
