import Foundation
import GRDB
import LarderHTTP
import Synchronization
import Testing

@testable import LarderStore

/// A store whose cache directory is on a file system that keeps nothing across a restart (tmpfs)
/// takes no durability barrier (docs/FORMATS.md, "Crash safety"); one on a disk takes them all.
/// What is counted is the barrier's own flush calls, through an injected ``BodyBarrier``.
@Suite("Store: no barrier on a file system in memory")
struct MemoryFileSystemTests {
    /// The file system type `/proc/self/mounts` gives for the mount holding `path` (the longest
    /// mount point that is a prefix of it), or nil when it cannot be read: an answer that does not
    /// go through `statfs`, to check it against.
    private static func mountType(of path: String) -> String? {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            let inside = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            if inside, point.count >= (best?.point.count ?? -1) {
                best = (point, String(fields[2]))
            }
        }
        return best?.type
    }

    /// Whether `/dev/shm` exists and is a tmpfs (Linux, as a rule).
    private static let sharedMemoryIsTmpfs = Self.mountType(of: "/dev/shm") == "tmpfs"

    /// Whether the tests' temporary folder is on a disk.
    private static let temporaryFolderIsOnDisk =
        Self.mountType(of: FileManager.default.temporaryDirectory.path).map { !["tmpfs", "ramfs"].contains($0) } ?? false

    /// How many times each step of the barrier was called, and with how many files or folders.
    private final class Flushes: Sendable {
        let calls = Mutex<(contents: Int, files: Int, names: Int)>((0, 0, 0))
    }

    /// The system barrier, counting its calls.
    private static func countingBarrier(_ flushes: Flushes) -> BodyBarrier {
        BodyBarrier(
            flushContents: { files in
                flushes.calls.withLock {
                    $0.contents += 1
                    $0.files += files.count
                }
                try BodyBarrier.system.flushContents(files)
            },
            flushNames: { folders in
                flushes.calls.withLock { $0.names += 1 }
                try BodyBarrier.system.flushNames(folders)
            }
        )
    }

    private static func url(_ index: Int) -> String {
        "http://site.example/memory/\(index).bin"
    }

    /// Runs `body` with a new empty folder in `parent`, deleted afterwards.
    private static func withFolder(in parent: String, _ body: (String) async throws -> Void) async throws {
        let path = parent + "/larder-store-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }

    /// Stages `count` bodies, commits a runtime entry and one whose body is the first staged one,
    /// and switches a game to the staged bodies; returns the barrier's calls and how many staged
    /// rows said `durable = 0` before the switch.
    private static func stageAndSwitch(in directory: String, count: Int) async throws -> (
        calls: (contents: Int, files: Int, names: Int), notDurable: Int
    ) {
        let flushes = Flushes()
        let store = try Store(directory: directory, migratingUpTo: nil, barrier: Self.countingBarrier(flushes))
        defer { try? store.close() }
        let staged = try (0..<count).map { index in
            let writer = try store.makeBodyWriter()
            let body = sampleBody(count: 2_000 + index, seed: UInt8(index))
            try writer.write(contentsOf: body)
            return StagedBody(
                writer: writer, key: try CacheKey(url: Self.url(index)), head: sampleHead(url: Self.url(index)),
                expectedLength: Int64(body.count))
        }
        #expect(await store.stage(staged).allSatisfy { (try? $0.get()) != nil })
        try await store.put(sampleBody(count: 3_000, seed: 200), at: "http://site.example/memory/runtime.bin")
        try await store.put(sampleBody(count: 2_000, seed: 0), at: "http://site.example/memory/same-as-staged.bin")
        let notDurable = try await store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM staged_entry WHERE durable = 0") ?? -1
        }

        var game = sampleGame("memory")
        game.filesListed = count
        game.filesCached = count
        let files = try (0..<count).map { GameFileRecord(key: try CacheKey(url: Self.url($0)), url: Self.url($0), state: .cached) }
        let outcome = try await store.saveGameVersion(game, files: files, installing: Set(files.map(\.key)))

        #expect(!outcome.keptPrevious)
        #expect(outcome.vanished.isEmpty)
        for index in 0..<count {
            #expect(try await store.body(at: Self.url(index)) == sampleBody(count: 2_000 + index, seed: UInt8(index)))
        }
        #expect(try await store.body(at: "http://site.example/memory/runtime.bin") == sampleBody(count: 3_000, seed: 200))
        return (flushes.calls.withLock { $0 }, notDurable)
    }

    @Test("statfs names /dev/shm as keeping nothing across a restart", .enabled(if: Self.sharedMemoryIsTmpfs))
    func sharedMemoryKeepsNothing() {
        #expect(!BodyBarrier.fileSystemKeepsFiles(at: "/dev/shm"))
    }

    @Test(
        "a store on tmpfs flushes nothing: no batch, no switch, and its staged rows are durable as written",
        .enabled(if: Self.sharedMemoryIsTmpfs))
    func tmpfsTakesNoBarrier() async throws {
        try await Self.withFolder(in: "/dev/shm") { directory in
            let (calls, notDurable) = try await Self.stageAndSwitch(in: directory, count: 40)

            #expect(calls.contents == 0)
            #expect(calls.files == 0)
            #expect(calls.names == 0)
            #expect(notDurable == 0)
        }
    }

    @Test(
        "a store on a disk flushes every body: the runtime ones in their batches, the staged ones at the switch",
        .enabled(if: Self.temporaryFolderIsOnDisk))
    func diskTakesTheBarrier() async throws {
        try await withTemporaryDirectory { directory in
            #expect(BodyBarrier.fileSystemKeepsFiles(at: directory))
            let count = 40
            let (calls, notDurable) = try await Self.stageAndSwitch(in: directory, count: count)

            #expect(notDurable == count)
            // The 2 runtime bodies in their batches, the staged body the second one shares, and
            // the 40 staged bodies at the switch (the shared one again: its row still says 0);
            // the folders once per batch and once at the switch.
            #expect(calls.files == 2 + 1 + count)
            #expect(calls.names == 3)
        }
    }
}
