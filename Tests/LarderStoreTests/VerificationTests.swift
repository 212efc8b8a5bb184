import Foundation
import Testing

@testable import LarderStore

@Suite("Store: verifying entries against body files")
struct VerificationTests {
    @Test("a missing body, a corrupted body, a wrong size and an orphan are found, then repaired")
    func findsAndRepairs() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let sound = try await store.put(sampleBody(count: 5000, seed: 1), at: "https://example.com/sound")
            let missing = try await store.put(sampleBody(count: 3000, seed: 2), at: "https://example.com/missing")
            let corrupted = try await store.put(sampleBody(count: 2000, seed: 3), at: "https://example.com/corrupted")
            let shrunk = try await store.put(sampleBody(count: 1000, seed: 4), at: "https://example.com/shrunk")
            let clean = try await store.verifyEntries(repair: false)
            #expect(clean.problems.isEmpty)
            #expect(clean.checkedEntries == 4)
            #expect(clean.checkedBytes == 11_000)

            try FileManager.default.removeItem(atPath: missing.bodyPath)
            var bytes = sampleBody(count: 2000, seed: 3)
            bytes[1000] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: corrupted.bodyPath))
            try Data(sampleBody(count: 10, seed: 4)).write(to: URL(fileURLWithPath: shrunk.bodyPath))
            let orphanHash = String(repeating: "ab", count: 32)
            try FileManager.default.createDirectory(atPath: directory + "/bodies/ab", withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/bodies/ab/" + orphanHash))

            let found = try await store.verifyEntries(repair: false)
            #expect(!found.isClean)
            #expect(
                Set(found.problems.map(\.subject)) == [
                    "https://example.com/missing", "https://example.com/corrupted", "https://example.com/shrunk",
                    directory + "/bodies/ab/" + orphanHash,
                ])
            #expect(found.problems.first { $0.subject.hasSuffix("/missing") }?.kind == .missingBody(path: missing.bodyPath))
            guard case .wrongHash = found.problems.first(where: { $0.subject.hasSuffix("/corrupted") })?.kind else {
                Issue.record("the corrupted body was not found by its hash")
                return
            }
            #expect(
                found.problems.first { $0.subject.hasSuffix("/shrunk") }?.kind
                    == .wrongSize(path: shrunk.bodyPath, indexed: 1000, actual: 10))
            #expect(found.problems.allSatisfy { !$0.repaired })

            let repaired = try await store.verifyEntries(repair: true)
            #expect(repaired.isClean)
            #expect(repaired.problems.count == 4)
            #expect(try await store.verifyEntries(repair: false).problems.isEmpty)
            #expect(try await store.totals().entries == 1)
            #expect(try await store.entry(for: sound.key) != nil)
            #expect(!FileManager.default.fileExists(atPath: corrupted.bodyPath))
            #expect(!FileManager.default.fileExists(atPath: directory + "/bodies/ab/" + orphanHash))
        }
    }

    @Test("leftovers are harmless: verify reports them apart from damage and stays clean; --repair removes them")
    func leftoversAreNotDamage() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            try await store.put(sampleBody(count: 100, seed: 1), at: "https://example.com/kept")
            let leftover = directory + "/tmp/crashed.partial"
            try Data([1]).write(to: URL(fileURLWithPath: leftover))
            let writing = try store.makeBodyWriter()
            try writing.write(contentsOf: [1, 2, 3])
            let orphan = directory + "/bodies/cd/" + String(repeating: "cd", count: 32)
            try Data([4]).write(to: URL(fileURLWithPath: orphan))

            let found = try await store.verifyEntries(repair: false)
            #expect(found.isClean)
            #expect(found.damage.isEmpty)
            #expect(Set(found.leftovers.map(\.subject)) == [leftover, orphan])
            #expect(FileManager.default.fileExists(atPath: leftover))

            let repaired = try await store.verifyEntries(repair: true)
            #expect(repaired.leftovers.allSatisfy { $0.repaired })
            #expect(!FileManager.default.fileExists(atPath: leftover))
            #expect(!FileManager.default.fileExists(atPath: orphan))
            // A body being written (its writer holds it) is never taken for a leftover.
            #expect(FileManager.default.fileExists(atPath: writing.temporaryPath))
            writing.discard()
            #expect(try await store.body(at: "https://example.com/kept") == sampleBody(count: 100, seed: 1))
        }
    }

    @Test("beside a writer that keeps replacing entries, verify and --repair find and remove nothing")
    func verifyBesideABusyWriter() async throws {
        try await withTemporaryDirectory { directory in
            let writer = try Store(directory: directory)
            defer { try? writer.close() }
            let urls = (0..<40).map { "https://example.com/\($0)" }
            for (index, url) in urls.enumerated() {
                try await writer.put(sampleBody(count: 2000, seed: UInt8(index)), at: url)
            }
            let verifier = try Store(directory: directory)
            defer { try? verifier.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Every round gives every entry a new body, releasing the old one.
                    for round in 1...15 {
                        for (index, url) in urls.enumerated() {
                            try await writer.put(sampleBody(count: 2000 + round, seed: UInt8(index)), at: url)
                        }
                    }
                }
                for round in 0..<6 {
                    let report = try await verifier.verifyEntries(repair: round % 2 == 1)
                    #expect(report.damage.isEmpty, "\(report.damage)")
                }
                try await group.waitForAll()
            }
            #expect(try await verifier.totals().entries == urls.count)
            for url in urls {
                #expect(try await verifier.body(at: url)?.count == 2015)
            }
        }
    }
}
