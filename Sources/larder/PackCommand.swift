import ArgumentParser
import Foundation
import LarderDevOffline
import LarderHTTP
import LarderPack
import LarderPrecache
import LarderStore

/// `larder pack`: one download, many devices. `export` writes what a games list names, as
/// precached here, to one file; `import` makes it ready in another cache with no network.
struct PackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Move precached games between caches as one file (a pack).",
        discussion: """
            A pack is a tar file: a manifest (larder-pack.json) and the bodies, named by SHA-256. \
            Export on a device that precached the games, copy the file, import on the others: no \
            network is needed there. See docs/FORMATS.md, Packs.

            Examples:
              larder pack export games.txt --output games.pack
              larder pack import games.pack --cache-dir /var/cache/larder
              larder pack export games.txt --output - | zstd > games.pack.zst
              zstd -dc games.pack.zst | larder pack import -
            """,
        subcommands: [PackExportCommand.self, PackImportCommand.self]
    )

    /// What packs give as the writer's version: Larder has no release numbers yet, and readers
    /// check the format version, never this.
    static let larderVersion = "larder (pack format \(PackManifest.currentVersion))"
}

/// `larder pack export`.
struct PackExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the games and pages a games list names, as precached in this cache, to a pack.",
        discussion: """
            Reads one consistent snapshot of the index: each game's record and file list, every \
            cached file's stored response (headers, validators, variants) and body, its manifest \
            and metadata.json, and the pages listed on their own. Whatever is missing (a game \
            never precached here, a failed file) is left out and listed; the pack is still \
            written, and the exit status is 1. Dated series are not packed. The pack is written \
            beside --output and renamed into place once complete, so a failed export leaves no \
            partial file. Exit status: 0 when everything named is in the pack, 1 otherwise, 2 \
            for usage errors.
            """
    )

    @Argument(help: ArgumentHelp("games.txt files naming what to export.", valueName: "file"))
    var files: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The pack file to write, or - for standard output.", valueName: "file"))
    var output: String

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @OptionGroup var config: ConfigFileOption

    func validate() throws {
        guard !self.files.isEmpty else { throw ValidationError("Name at least one games.txt file.") }
        for file in self.files where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("\(file): no readable file there.")
        }
        guard !self.output.isEmpty else { throw ValidationError("--output needs a file name, or - for standard output.") }
        if self.output == "-", isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("--output -: standard output is a terminal; redirect it to a file or a pipe.")
        }
    }

    func run() async throws {
        // Logs go to standard error: standard output may be the pack itself.
        CommandSupport.bootstrapLogging("warning")
        // The proxy's ignoreQueryParameters decide the keys pages and manifests are stored under.
        let filter = try self.config.load().queryFilter
        var list = GamesList(entries: [], problems: [])
        for file in self.files {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CommandFailure("\(file): cannot read it as UTF-8 text")
            }
            list.append(GamesList.parse(text, source: file))
        }
        let directory = self.cacheDirectory.resolved()
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw CommandFailure("there is no cache at \(directory) (run larder precache first)")
        }
        let selection = PackSelection(
            games: list.games.map { game in
                PackSelection.Game(
                    root: game.root.absoluteString,
                    companionKeys: [CacheKey(url: game.manifestURL, filter: filter), CacheKey(url: game.metadataURL, filter: filter)])
            },
            pages: list.pageURLs.map { PackSelection.Page(key: CacheKey(url: $0, filter: filter), url: $0.absoluteString) }
        )
        let store = try CommandSupport.openStore(directory)
        defer { try? store.close() }
        let exporter = PackExporter(store: store)
        let manifest = try await exporter.plan(selection, larderVersion: PackCommand.larderVersion)
        guard !manifest.games.isEmpty || !manifest.pages.isEmpty else {
            throw CommandFailure(
                "nothing \(self.files.joined(separator: ", ")) names is precached in \(directory); no pack was written (run larder precache first)"
            )
        }
        let bytes = try self.write(manifest, with: exporter)

        var text = ""
        let ready = manifest.games.count { $0.state == "ready" && $0.filesCached == $0.filesListed }
        text += "Wrote \(self.output == "-" ? "the pack to standard output" : self.output): "
        text += "\(manifest.games.count) game\(manifest.games.count == 1 ? "" : "s") (\(ready) ready), "
        text += "\(manifest.pages.count) page\(manifest.pages.count == 1 ? "" : "s"), "
        text += "\(HumanFormat.count(manifest.entries.count)) entries, \(HumanFormat.bytes(bytes)) of bodies.\n"
        for problem in list.problems {
            text += "Not understood: \(problem)\n"
        }
        if !list.series.isEmpty {
            text += "Not packed (dated series are not in packs): \(list.series.map(\.line).joined(separator: ", "))\n"
        }
        if !manifest.missing.isEmpty {
            text += "Missing (not in the pack):\n"
            for missing in manifest.missing {
                text += "  \(missing.owner): \(missing.url): \(missing.reason)\n"
            }
        }
        // With the pack on standard output, the report goes to standard error.
        (self.output == "-" ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
        if !manifest.missing.isEmpty || !list.problems.isEmpty {
            throw ExitCode(1)
        }
    }

    /// Writes the pack to standard output, or to a file beside --output renamed into place once
    /// complete and synced. Returns the bytes of bodies written.
    private func write(_ manifest: PackManifest, with exporter: PackExporter) throws -> Int64 {
        if self.output == "-" {
            return try exporter.write(manifest, to: STDOUT_FILENO, path: "standard output")
        }
        let partial = self.output + ".partial-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot write \(partial): \(String(cString: strerror(errno)))")
        }
        do {
            let bytes = try exporter.write(manifest, to: descriptor, path: self.output)
            guard fsync(descriptor) == 0 else { throw PackError.io(path: partial, operation: "sync", errno: errno) }
            close(descriptor)
            guard rename(partial, self.output) == 0 else { throw PackError.io(path: self.output, operation: "rename to", errno: errno) }
            return bytes
        } catch {
            close(descriptor)
            unlink(partial)
            throw CommandFailure("\(error); no pack was written")
        }
    }
}

/// `larder pack import`.
struct PackImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make the games of a pack ready in this cache, with no network.",
        discussion: """
            Checks every body against its SHA-256 before storing it and merges with what the \
            cache holds: a game or entry is replaced only by a newer one (docs/FORMATS.md, Packs, \
            says what newer means), so importing again, or importing an older pack, changes \
            nothing. A game is switched to the pack's version in one step once all its bodies \
            are stored; a damaged body keeps the games that need it as they were and installs \
            the rest. A pack that is not a pack, truncated, of another version or with names \
            that escape is refused with nothing switched. Safe beside a running larder serve. \
            Exit status: 0 when every game is installed or up to date, 1 otherwise, 2 for usage errors.
            """
    )

    @Argument(help: ArgumentHelp("The pack file, or - for standard input.", valueName: "file"))
    var file: String

    @Flag(help: "Read and verify the whole pack and say what would be installed, writing nothing.")
    var dryRun = false

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    func run() async throws {
        CommandSupport.bootstrapLogging("warning")
        let descriptor = self.file == "-" ? STDIN_FILENO : open(self.file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot open \(self.file): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let directory = self.cacheDirectory.resolved()
        let store = try CommandSupport.openStore(directory)
        defer { try? store.close() }
        let report: PackImportReport
        do {
            report = try await PackImporter(store: store).run(
                descriptor: descriptor, path: self.file == "-" ? "standard input" : self.file, dryRun: self.dryRun)
        } catch let error as PackError {
            throw CommandFailure("\(error)")
        }
        FileHandle.standardOutput.write(Data(Self.text(report, dryRun: self.dryRun, directory: directory).utf8))
        if !report.succeeded {
            throw ExitCode(1)
        }
    }

    static func text(_ report: PackImportReport, dryRun: Bool, directory: String) -> String {
        var lines = [dryRun ? "Dry run: nothing was written to \(directory)." : "Imported into \(directory):"]
        for game in report.games {
            let name = game.displayName.map { "\($0) (\(game.slug))" } ?? game.slug
            switch game.outcome {
            case .installed(let state):
                let readiness = state == "ready" ? "ready offline" : state
                lines.append("  \(state == "ready" ? "✓" : "-") \(name): \(dryRun ? "would be installed" : "installed"), \(readiness)")
            case .upToDate:
                lines.append("  = \(name): already up to date")
            case .keptNewer:
                lines.append("  = \(name): this cache's version is newer; kept")
            case .notInstalled(let reason):
                lines.append("  ✗ \(name): not installed: \(reason)")
            }
        }
        let verb = dryRun ? "to install" : "installed"
        lines.append(
            "Entries: \(HumanFormat.count(report.entriesInstalled)) \(verb) (\(HumanFormat.bytes(report.bytesInstalled))), "
                + "\(HumanFormat.count(report.entriesKept)) kept (as new or newer here); "
                + "pages: \(report.pagesInstalled) \(verb), \(report.pagesKept) kept.")
        if !report.damaged.isEmpty {
            lines.append("Damaged in the pack (not installed):")
            lines += report.damaged.map { "  \($0)" }
        }
        if !report.missing.isEmpty {
            lines.append("Not in the pack (the exporting cache lacked them):")
            lines += report.missing.map { "  \($0.owner): \($0.url): \($0.reason)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
