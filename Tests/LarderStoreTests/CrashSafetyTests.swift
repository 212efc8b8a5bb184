import Foundation
import GRDB
import Testing

@testable import LarderStore

/// A commit that fails (a full disk, a SIGKILL before it lands) must leave every row with its body.
@Suite("Store: a failed commit loses no entry")
struct CrashSafetyTests {
    /// Makes every later commit that changed `entry` fail: a deferred foreign key that the
    /// triggers break is only checked at COMMIT, as a full disk is only met there.
    private func makeCommitsFail(_ store: Store) async throws {
        try await store.executeForTesting(
            sql: """
                CREATE TABLE commit_guard (id INTEGER PRIMARY KEY);
                CREATE TABLE commit_breaker (
                    guard_id INTEGER REFERENCES commit_guard(id) DEFERRABLE INITIALLY DEFERRED
                );
                CREATE TRIGGER break_insert AFTER INSERT ON entry BEGIN INSERT INTO commit_breaker VALUES (42); END;
                CREATE TRIGGER break_update AFTER UPDATE ON entry BEGIN INSERT INTO commit_breaker VALUES (42); END;
                CREATE TRIGGER break_delete AFTER DELETE ON entry BEGIN INSERT INTO commit_breaker VALUES (42); END;
                """
        )
    }

    @Test("replacing an entry whose commit fails keeps the old entry and its body")
    func failedReplacementKeepsTheOldBody() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let old = sampleBody(count: 3000, seed: 1)
            let entry = try await store.put(old, at: "https://example.com/app.js")
            try await self.makeCommitsFail(store)

            await #expect(throws: (any Error).self) {
                try await store.put(sampleBody(count: 4000, seed: 2), at: "https://example.com/app.js")
            }
            #expect(FileManager.default.fileExists(atPath: entry.bodyPath))
            #expect(try await store.body(at: "https://example.com/app.js") == old)
            #expect(try await store.verifyEntries(repair: false).damage.isEmpty)
        }
    }

    @Test("removing, evicting and purging whose commit fails keep every entry and body")
    func failedRemovalsKeepTheBodies() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let urls = (0..<4).map { "https://example.com/\($0)" }
            for (index, url) in urls.enumerated() {
                try await store.put(sampleBody(count: 1000, seed: UInt8(index)), at: url)
            }
            try await self.makeCommitsFail(store)

            await #expect(throws: (any Error).self) { try await store.removeEntry(for: try cacheKey(urls[0])) }
            await #expect(throws: (any Error).self) { try await store.removeEntries([try cacheKey(urls[1])]) }
            await #expect(throws: (any Error).self) { try await store.evictRuntime(toFitWithin: 0) }
            await #expect(throws: (any Error).self) { try await store.removeRuntimeEntries() }
            for (index, url) in urls.enumerated() {
                #expect(try await store.body(at: url) == sampleBody(count: 1000, seed: UInt8(index)))
            }
            #expect(try await store.verifyEntries(repair: false).problems.isEmpty)
        }
    }

    @Test("leftovers of a crash are removed in the background; bodies in use and being written stay")
    func removeLeftovers() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let kept = try await store.put(sampleBody(count: 500, seed: 7), at: "https://example.com/kept")
            let orphan = directory + "/bodies/ee/" + String(repeating: "ee", count: 32)
            try Data([1, 2]).write(to: URL(fileURLWithPath: orphan))
            let crashed = directory + "/tmp/crashed.partial"
            try Data([3]).write(to: URL(fileURLWithPath: crashed))
            let writing = try store.makeBodyWriter()
            try writing.write(contentsOf: [4, 5, 6])
            // A store on this directory was killed: its marker is left, unlocked.
            let killed = directory + "/runs/killed.run"
            try Data().write(to: URL(fileURLWithPath: killed))

            let removed = try await store.removeLeftovers(pause: .zero)
            #expect(removed.orphanBodies == [orphan])
            #expect(removed.temporaryFiles == [crashed])
            #expect(!FileManager.default.fileExists(atPath: orphan))
            #expect(!FileManager.default.fileExists(atPath: crashed))
            #expect(FileManager.default.fileExists(atPath: kept.bodyPath))
            #expect(FileManager.default.fileExists(atPath: writing.temporaryPath))
            #expect(!FileManager.default.fileExists(atPath: killed))
            let entry = try await writing.commit(
                key: try cacheKey("https://example.com/late"),
                head: sampleHead(url: "https://example.com/late"),
                kind: .runtime,
                expectedLength: 3
            )
            #expect(FileManager.default.fileExists(atPath: entry.bodyPath))
            #expect(try await store.removeLeftovers(pause: .zero) == StoreLeftovers())
        }
    }

    @Test("after clean shutdowns only tmp/ is looked at: the body folders are not read")
    func cleanShutdownsSkipTheOrphanScan() async throws {
        try await withTemporaryDirectory { directory in
            let earlier = try Store(directory: directory)
            try earlier.close()
            let store = try Store(directory: directory)
            defer { try? store.close() }
            // Another process's store, open and alive: its marker is locked.
            let alive = try Store(directory: directory)
            defer { try? alive.close() }
            let orphan = directory + "/bodies/ee/" + String(repeating: "ee", count: 32)
            try Data([1, 2]).write(to: URL(fileURLWithPath: orphan))
            let crashed = directory + "/tmp/crashed.partial"
            try Data([3]).write(to: URL(fileURLWithPath: crashed))

            let removed = try await store.removeLeftovers(pause: .zero)
            #expect(removed.orphanBodies.isEmpty)
            #expect(removed.temporaryFiles == [crashed])
            #expect(FileManager.default.fileExists(atPath: orphan))
            // verify still reads everything.
            #expect(try await store.verifyEntries(repair: false).leftovers.map(\.subject) == [orphan])
        }
    }
}
