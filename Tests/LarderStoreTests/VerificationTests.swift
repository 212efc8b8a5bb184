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
            #expect(Set(found.problems.map(\.subject)) == ["https://example.com/missing", "https://example.com/corrupted", "https://example.com/shrunk", directory + "/bodies/ab/" + orphanHash])
            #expect(found.problems.first { $0.subject.hasSuffix("/missing") }?.kind == .missingBody(path: missing.bodyPath))
            guard case .wrongHash = found.problems.first(where: { $0.subject.hasSuffix("/corrupted") })?.kind else {
                Issue.record("the corrupted body was not found by its hash")
                return
            }
            #expect(found.problems.first { $0.subject.hasSuffix("/shrunk") }?.kind == .wrongSize(path: shrunk.bodyPath, indexed: 1000, actual: 10))
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

    @Test("stale temporary files are reported and removed; fresh ones are left to their writers")
    func staleTemporaryFiles() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let stale = directory + "/tmp/old.partial"
            let fresh = directory + "/tmp/new.partial"
            try Data([1]).write(to: URL(fileURLWithPath: stale))
            try Data([2]).write(to: URL(fileURLWithPath: fresh))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * Store.staleTemporaryFileAge)], ofItemAtPath: stale)
            let report = try await store.verifyEntries(repair: true)
            #expect(report.problems == [VerificationReport.Problem(subject: stale, kind: .staleTemporaryFile, repaired: true)])
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: fresh))
        }
    }
}
