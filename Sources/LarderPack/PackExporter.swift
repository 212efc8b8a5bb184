import Crypto
import Foundation
import LarderHTTP
import LarderStore

/// Writes packs: what a games list names, read from one snapshot of the index, as a tar stream
/// whose first file is the manifest (``PackManifest``) and whose other files are the bodies, each
/// once, named by hash (docs/FORMATS.md, "Packs").
public struct PackExporter: Sendable {
    let store: Store

    /// An exporter reading from `store`.
    public init(store: Store) {
        self.store = store
    }

    /// The manifest of the pack `selection` makes: game records, file lists, pages and entries as
    /// one read transaction saw them, and what is missing. An entry whose body file is gone or of
    /// another size is left out and reported missing.
    public func plan(_ selection: PackSelection, larderVersion: String, now: Date = Date()) async throws -> PackManifest {
        let found = try await self.store.readSnapshot { snapshot in try Self.collect(selection, from: snapshot, now: now) }
        var missing = found.missing
        var damaged = Set<String>()
        var checked: [String: Bool] = [:]
        var entries: [PackEntry] = []
        for entry in found.entries {
            let intact: Bool
            if let known = checked[entry.bodyHash] {
                intact = known
            } else {
                let size = (try? FileManager.default.attributesOfItem(atPath: entry.bodyPath)[.size]) as? NSNumber
                intact = size?.int64Value == entry.bodySize
                checked[entry.bodyHash] = intact
            }
            if intact {
                entries.append(PackEntry(entry))
            } else {
                damaged.insert(entry.key.rawValue)
                missing.append(
                    PackMissing(
                        owner: found.owners[entry.key.rawValue] ?? "page", url: entry.url,
                        reason: "its body file is missing or damaged in this cache (larder verify --repair, then precache again)"))
            }
        }
        var games = found.games
        for index in games.indices {
            games[index].entryKeys.removeAll { damaged.contains($0) }
        }
        var pages = found.pages
        for index in pages.indices {
            pages[index].entryKeys.removeAll { damaged.contains($0) }
        }
        var seen = Set<String>()
        let bodies = entries.compactMap { entry in
            seen.insert(entry.sha256).inserted
                ? PackBody(name: PackBody.name(for: entry.sha256), sha256: entry.sha256, size: entry.size) : nil
        }
        return PackManifest(
            format: PackManifest.formatName, version: PackManifest.currentVersion, createdAt: now.timeIntervalSince1970,
            larderVersion: larderVersion, games: games, pages: pages, entries: entries, bodies: bodies, missing: missing)
    }

    /// Writes the pack `manifest` describes to `descriptor` (a file or a pipe; `path` names it in
    /// errors), streaming each body from its file and checking it against its hash as it goes: a
    /// body changed on disk fails the export (``PackError/bodyUnavailable(url:reason:)``), so a
    /// pack never carries bytes other than its manifest says. Returns the bytes of bodies written.
    @discardableResult
    public func write(_ manifest: PackManifest, to descriptor: Int32, path: String) throws -> Int64 {
        let tar = TarWriter(descriptor: descriptor, path: path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = Array(try encoder.encode(manifest))
        let modified = Int64(manifest.createdAt)
        try tar.beginFile(name: PackManifest.fileName, size: Int64(json.count), modified: modified)
        try tar.write(json)
        try tar.endFile()

        var urls: [String: String] = [:]
        for entry in manifest.entries where urls[entry.sha256] == nil {
            urls[entry.sha256] = entry.url
        }
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for body in manifest.bodies {
            let url = urls[body.sha256] ?? body.name
            let file = open(self.store.bodyPath(forHash: body.sha256), O_RDONLY | O_CLOEXEC)
            guard file >= 0 else {
                throw PackError.bodyUnavailable(
                    url: url, reason: "its body file vanished while exporting (purged or evicted meanwhile); export again")
            }
            defer { close(file) }
            var status = stat()
            guard fstat(file, &status) == 0, Int64(status.st_size) == body.size else {
                throw PackError.bodyUnavailable(url: url, reason: "its body file changed size while exporting (larder verify)")
            }
            try tar.beginFile(name: body.name, size: body.size, modified: modified)
            var hasher = SHA256()
            var left = body.size
            while left > 0 {
                let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, min($0.count, Int(clamping: left))) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    throw PackError.bodyUnavailable(url: url, reason: "its body file ended early while exporting (larder verify)")
                }
                try buffer.withUnsafeBytes { bytes in
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                    hasher.update(bufferPointer: piece)
                    try tar.write(piece)
                }
                left -= Int64(count)
            }
            guard Self.hex(hasher.finalize()) == body.sha256 else {
                throw PackError.bodyUnavailable(
                    url: url, reason: "its body file no longer matches its hash (damaged on disk: larder verify --repair)")
            }
            try tar.endFile()
            total += body.size
        }
        try tar.finish()
        return total
    }

    /// What one snapshot holds for the selection: game and page records, entries in order, owners
    /// of entries (for messages), and what is missing.
    private static func collect(_ selection: PackSelection, from snapshot: IndexSnapshot, now: Date) throws -> SnapshotRead {
        var found = SnapshotRead()
        var included = Set<String>()
        // A personal answer (docs/SERVING.md, "Private answers") is one user's: a pack goes to
        // other devices, so it never carries one.
        func include(_ entries: [CachedEntry], owner: String) -> [String] {
            let shared = entries.filter { AnswerOwner.recordedDigest(in: $0.varyRequestHeaders) == nil }
            for entry in shared where included.insert(entry.key.rawValue).inserted {
                found.entries.append(entry)
                found.owners[entry.key.rawValue] = owner
            }
            return shared.map(\.key.rawValue)
        }
        for game in selection.games {
            guard let record = try snapshot.game(root: game.root) else {
                found.missing.append(PackMissing(owner: game.root, url: game.root, reason: "not precached in this cache"))
                continue
            }
            guard record.state != .failed else {
                // No usable version: nothing to carry, and a failed record would only say so elsewhere.
                found.missing.append(PackMissing(owner: record.slug, url: record.root, reason: record.lastError ?? "failed"))
                continue
            }
            let files = try snapshot.gameFiles(slug: record.slug)
            var keys: [String] = []
            for file in files {
                switch file.state {
                case .cached:
                    let entries = try snapshot.entries(for: file.key)
                    if entries.isEmpty {
                        found.missing.append(
                            PackMissing(owner: record.slug, url: file.url, reason: "recorded as cached but not stored any more"))
                    }
                    keys += include(entries, owner: record.slug)
                case .failed:
                    found.missing.append(PackMissing(owner: record.slug, url: file.url, reason: file.reason ?? "failed"))
                case .excluded, .refused:
                    break
                }
            }
            for key in game.companionKeys {
                keys += include(try snapshot.entries(for: key), owner: record.slug)
            }
            found.games.append(PackGame(record, files: files, entryKeys: keys))
        }
        let pageRecords = Dictionary(try snapshot.pages().map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for page in selection.pages {
            let entries = try snapshot.entries(for: page.key)
            let keys = include(entries, owner: "page")
            guard !keys.isEmpty else {
                let reason = entries.isEmpty ? "not in this cache" : "only personal copies are stored (fetched with credentials)"
                found.missing.append(PackMissing(owner: "page", url: page.url, reason: reason))
                continue
            }
            let lastRun = pageRecords[page.key]?.lastRun ?? now
            found.pages.append(PackPage(key: page.key.rawValue, url: page.url, lastRun: lastRun.timeIntervalSince1970, entryKeys: keys))
        }
        return found
    }

    private struct SnapshotRead: Sendable {
        var games: [PackGame] = []
        var pages: [PackPage] = []
        var entries: [CachedEntry] = []
        var owners: [String: String] = [:]
        var missing: [PackMissing] = []
    }

    /// Lower-case hex of a digest.
    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
