import Crypto
import Foundation
import LarderHTTP
import LarderStore

/// Reads a pack into a cache: checks the manifest, decides against one snapshot of the index what
/// is newer in the pack (``NewerCopy``), streams the bodies it needs through the store's durable
/// install path, each verified against its hash before it is stored, and switches each game to the
/// pack's version in one transaction.
///
/// Safety (docs/FORMATS.md, "Packs"): a game's bodies are staged (never served) and its record
/// switched only once every one of them arrived intact, so a damaged body, a truncated pack or a
/// SIGKILL leaves the game as it was; pages on their own are installed entry by entry (each is
/// whole or absent). Nothing the cache holds is replaced by an older copy.
public struct PackImporter: Sendable {
    let store: Store

    /// An importer writing to `store`.
    public init(store: Store) {
        self.store = store
    }

    /// Imports the pack read from `descriptor` (a file or a pipe; `path` names it in errors). With
    /// `dryRun`, every body is read and verified and the report says what would be installed, but
    /// nothing is written.
    ///
    /// Throws ``PackError`` when the input is not a pack, is truncated, of another version, or
    /// damaged in its structure (then no game is switched); a body whose bytes do not match its
    /// hash is reported in ``PackImportReport/damaged`` and keeps only the games that need it out.
    public func run(descriptor: Int32, path: String, dryRun: Bool = false) async throws -> PackImportReport {
        let reader = TarReader(descriptor: descriptor, path: path)
        let manifest = try Self.readManifest(reader)
        try Self.validate(manifest, path: path)
        let plan = try await self.store.readSnapshot { snapshot in try Self.plan(manifest, snapshot: snapshot) }
        var report = PackImportReport(missing: manifest.missing)
        report.entriesKept = plan.kept
        report.pagesKept = plan.pages.count { !$0.install }

        var wanted: [String: [Install]] = [:]
        for install in plan.installs {
            wanted[install.entry.sha256, default: []].append(install)
        }
        let bodies = Dictionary(manifest.bodies.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var bad: [String: String] = [:]
        while let (name, size) = try reader.next() {
            guard let body = bodies[name] else {
                throw PackError.damaged(path: path, reason: "it holds \(name), which its manifest does not list")
            }
            guard size == body.size, seen.insert(name).inserted else {
                throw PackError.damaged(
                    path: path, reason: "\(name) is \(size) bytes or comes twice; its manifest says \(body.size) bytes, once")
            }
            let installs = wanted[body.sha256] ?? []
            if dryRun || installs.isEmpty {
                let hash = try Self.hash(reader)
                if hash != body.sha256 {
                    bad[body.sha256] = "its bytes hash to \(hash), not \(body.sha256)"
                } else if dryRun {
                    report.entriesInstalled += installs.count
                    report.bytesInstalled += body.size * Int64(installs.count)
                }
                continue
            }
            let writer = try self.store.makeBodyWriter()
            while case let piece = try reader.read(upTo: 1 << 16), !piece.isEmpty {
                try writer.write(contentsOf: piece)
            }
            do {
                try await self.install(installs[0], writer: writer)
            } catch StoreError.hashMismatch(_, let actual) {
                bad[body.sha256] = "its bytes hash to \(actual), not \(body.sha256)"
                continue
            }
            // Another entry with the same body: copied from the stored file, checked again.
            for install in installs.dropFirst() {
                try await self.install(install, copyingFrom: self.store.bodyPath(forHash: body.sha256))
            }
            report.entriesInstalled += installs.count
            report.bytesInstalled += body.size * Int64(installs.count)
        }
        if let absent = manifest.bodies.first(where: { !seen.contains($0.name) }) {
            throw PackError.truncated(path: path, entry: "\(absent.name) (listed in its manifest, absent from the archive)")
        }
        let urls = Dictionary(manifest.entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in manifest.entries where bad[entry.sha256] != nil {
            report.damaged.append("\(entry.url): \(bad[entry.sha256] ?? "")")
        }

        for planned in plan.games {
            var outcome = planned.decision
            if case .installed = outcome {
                if let damaged = planned.game.entryKeys.first(where: { urls[$0].map { bad[$0.sha256] != nil } ?? false }) {
                    outcome = .notInstalled("the pack's copy of \(urls[damaged]?.url ?? damaged) is damaged; this cache's version stays")
                } else if !dryRun, let record = planned.game.record(slug: planned.slug), let files = planned.game.fileRecords {
                    let staged = Set(planned.staged.map { CacheKey(storedRawValue: $0) })
                    let stamp = planned.game.stamp
                    let saved = try await self.store.saveGameVersion(record, files: files, installing: staged) { stored in
                        // Decided at the plan; checked again in the switch's transaction, in case a precache ran meanwhile.
                        NewerCopy.replaces(stamp, over: stored.map { NewerCopy.GameStamp(isComplete: $0.isComplete, lastRun: $0.lastRun) })
                    }
                    if !saved.keptPrevious {
                        outcome = .installed(state: saved.record.state.rawValue)
                    } else if saved.record.lastRun != record.lastRun {
                        outcome = .keptNewer
                    } else {
                        outcome = .notInstalled(saved.record.lastError ?? "this cache's complete version stays")
                    }
                }
            }
            report.games.append(.init(slug: planned.slug, displayName: planned.game.displayName, outcome: outcome))
        }
        var pages: [PrecachePageRecord] = []
        for page in plan.pages where page.install {
            guard !page.page.entryKeys.contains(where: { urls[$0].map { bad[$0.sha256] != nil } ?? false }) else { continue }
            report.pagesInstalled += 1
            pages.append(
                PrecachePageRecord(
                    key: CacheKey(storedRawValue: page.page.key), url: page.page.url, state: .cached, reason: nil,
                    lastRun: Date(timeIntervalSince1970: page.page.lastRun)))
        }
        if !dryRun, !pages.isEmpty {
            try await self.store.savePages(pages)
        }
        return report
    }

    /// One entry to install: staged with its game, or committed at once (a page on its own).
    struct Install: Sendable {
        var entry: PackEntry
        var staged: Bool
    }

    private func install(_ install: Install, writer: BodyWriter) async throws {
        guard let head = install.entry.head else {
            writer.discard()
            return
        }
        let key = CacheKey(storedRawValue: install.entry.key)
        if install.staged {
            _ = try await writer.stage(
                key: key, head: head, expectedLength: install.entry.size, revision: install.entry.revision,
                expectedHash: install.entry.sha256)
        } else {
            _ = try await writer.commit(
                key: key, head: head, kind: .precached, expectedLength: install.entry.size, revision: install.entry.revision,
                expectedHash: install.entry.sha256)
        }
    }

    private func install(_ install: Install, copyingFrom path: String) async throws {
        let writer = try self.store.makeBodyWriter()
        guard let handle = FileHandle(forReadingAtPath: path) else {
            writer.discard()
            throw PackError.bodyUnavailable(url: install.entry.url, reason: "its body vanished from the cache while importing")
        }
        defer { try? handle.close() }
        while let piece = try handle.read(upToCount: 1 << 16), !piece.isEmpty {
            try writer.write(contentsOf: piece)
        }
        try await self.install(install, writer: writer)
    }

    /// The SHA-256 of the current entry's data, read to its end.
    private static func hash(_ reader: TarReader) throws -> String {
        var hasher = SHA256()
        while case let piece = try reader.read(upTo: 1 << 16), !piece.isEmpty {
            piece.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return PackExporter.hex(hasher.finalize())
    }

    /// The first entry, which must be the manifest.
    static func readManifest(_ reader: TarReader) throws -> PackManifest {
        let path = reader.path
        let first: (name: String, size: Int64)?
        do {
            first = try reader.next()
        } catch PackError.damaged(_, let reason) {
            throw PackError.notAPack(path: path, reason: "it is not a tar archive (\(reason))")
        } catch PackError.truncated {
            throw PackError.notAPack(path: path, reason: "it is empty or too short to be a tar archive")
        }
        guard let first, first.name == PackManifest.fileName else {
            throw PackError.notAPack(path: path, reason: "its first file is not \(PackManifest.fileName)")
        }
        guard first.size <= PackManifest.maximumSize else {
            throw PackError.badManifest(path: path, reason: "it is \(first.size) bytes, more than the \(PackManifest.maximumSize) read")
        }
        var json: [UInt8] = []
        json.reserveCapacity(Int(first.size))
        while case let piece = try reader.read(upTo: 1 << 16), !piece.isEmpty {
            json += piece
        }
        let manifest: PackManifest
        do {
            manifest = try JSONDecoder().decode(PackManifest.self, from: Data(json))
        } catch {
            // The version is checked before the rest, so a newer pack says so instead of failing on a field.
            struct Version: Decodable {
                var format: String
                var version: Int
            }
            if let version = try? JSONDecoder().decode(Version.self, from: Data(json)), version.format == PackManifest.formatName,
                version.version != PackManifest.currentVersion
            {
                throw PackError.unsupportedVersion(path: path, found: version.version, supported: PackManifest.currentVersion)
            }
            throw PackError.badManifest(path: path, reason: "\(error)")
        }
        guard manifest.format == PackManifest.formatName else {
            throw PackError.notAPack(path: path, reason: "its manifest's format is '\(manifest.format)', not \(PackManifest.formatName)")
        }
        guard manifest.version == PackManifest.currentVersion else {
            throw PackError.unsupportedVersion(path: path, found: manifest.version, supported: PackManifest.currentVersion)
        }
        return manifest
    }

    /// Checks what the rest of the import relies on: hashes that are hashes, bodies for every entry
    /// under their own names, entries for every key a game or page lists, known states.
    static func validate(_ manifest: PackManifest, path: String) throws {
        func fail(_ reason: String) -> PackError { .badManifest(path: path, reason: reason) }
        var bodies: [String: Int64] = [:]
        for body in manifest.bodies {
            guard Self.isSHA256Hex(body.sha256), body.name == PackBody.name(for: body.sha256), body.size >= 0 else {
                throw fail("the body \(body.name) is not named bodies/<its SHA-256>")
            }
            bodies[body.sha256] = body.size
        }
        var keys = Set<String>()
        for entry in manifest.entries {
            guard bodies[entry.sha256] == entry.size else {
                throw fail("the entry \(entry.key) names a body the pack does not hold (\(entry.sha256), \(entry.size) bytes)")
            }
            guard entry.head != nil, keys.insert(entry.key).inserted, !entry.key.isEmpty else {
                throw fail("the entry \(entry.key) is listed twice or has malformed headers")
            }
        }
        for game in manifest.games {
            guard game.record(slug: game.slug) != nil, game.fileRecords != nil, !game.slug.isEmpty else {
                throw fail("the game \(game.slug) has an unknown state")
            }
            if let key = game.entryKeys.first(where: { !keys.contains($0) }) {
                throw fail("the game \(game.slug) lists the entry \(key), which the pack does not hold")
            }
        }
        for page in manifest.pages {
            if let key = page.entryKeys.first(where: { !keys.contains($0) }) {
                throw fail("the page \(page.url) lists the entry \(key), which the pack does not hold")
            }
        }
    }

    private static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
