import Foundation
import LarderHTTP
import LarderStore
import LarderTestSupport
import Testing

/// `larder verify` with the real binary.
@Suite("End to end: larder verify")
struct VerifyTests {
    @Test("a deleted body and a corrupted body are reported (exit 1); --repair removes them (exit 0)")
    func verifyAndRepair() async throws {
        try await withProxy { larder, origin in
            for name in ["kept", "deleted", "corrupted"] {
                origin.setRoute("/\(name).txt", .text("body of \(name) " + String(repeating: name, count: 100)))
                #expect(try await Curl.run(origin.url("/\(name).txt"), proxy: larder.proxyURL).status == 200)
            }
            await larder.stop()
            let cache = larder.cacheDirectory
            let store = try Store(directory: cache)
            let deleted = try #require(try await store.entry(for: try CacheKey(url: origin.url("/deleted.txt"))))
            let corrupted = try #require(try await store.entry(for: try CacheKey(url: origin.url("/corrupted.txt"))))
            try? store.close()
            try FileManager.default.removeItem(atPath: deleted.bodyPath)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: corrupted.bodyPath)))
            bytes[10] ^= 0x20  // same size, other content
            try Data(bytes).write(to: URL(fileURLWithPath: corrupted.bodyPath))

            let check = try await LarderCLI.run(["verify", "--cache-dir", cache])
            #expect(check.exitCode == 1)
            #expect(check.stdout.contains(origin.url("/deleted.txt") + ": body file"))
            #expect(check.stdout.contains("is missing"))
            #expect(check.stdout.contains(origin.url("/corrupted.txt") + ": body file"))
            #expect(check.stdout.contains("is corrupted"))
            #expect(!check.stdout.contains(origin.url("/kept.txt")))
            #expect(check.stdout.contains("Checked 3 entries"))

            let repair = try await LarderCLI.run(["verify", "--repair", "--cache-dir", cache])
            #expect(repair.exitCode == 0, "\(repair.stdout) \(repair.stderr)")
            #expect(repair.stdout.contains("2 damaged, 2 repaired"))
            let again = try await LarderCLI.run(["verify", "--cache-dir", cache])
            #expect(again.exitCode == 0)
            #expect(again.stdout.contains("Checked 1 entries"))
            #expect(again.stdout.contains("no damaged entries"))
            #expect(!FileManager.default.fileExists(atPath: corrupted.bodyPath))
        }
    }

    @Test("leftovers of a kill are reported as harmless (exit 0), and larder serve removes them when it starts")
    func leftoversAfterAKill() async throws {
        try await withProxy { larder, origin in
            origin.setRoute("/kept.txt", .text("kept body"))
            #expect(try await Curl.run(origin.url("/kept.txt"), proxy: larder.proxyURL).status == 200)
            await entriesStored(in: larder)
            _ = await larder.stop(signal: SIGKILL)
            let cache = larder.cacheDirectory
            let orphan = cache + "/bodies/0f/" + String(repeating: "0f", count: 32)
            let partial = cache + "/tmp/killed.partial"
            try Data("orphan".utf8).write(to: URL(fileURLWithPath: orphan))
            try Data("partial".utf8).write(to: URL(fileURLWithPath: partial))

            let check = try await LarderCLI.run(["verify", "--cache-dir", cache])
            #expect(check.exitCode == 0, "\(check.stdout) \(check.stderr)")
            #expect(check.stdout.contains("Leftovers of an interrupted run"))
            #expect(check.stdout.contains(orphan))
            #expect(check.stdout.contains(partial))
            #expect(check.stdout.contains("no damaged entries; 2 leftover files"))

            let restarted = try await LarderProcess(cacheDirectory: cache)
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline,
                FileManager.default.fileExists(atPath: orphan) || FileManager.default.fileExists(atPath: partial)
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!FileManager.default.fileExists(atPath: orphan))
            #expect(!FileManager.default.fileExists(atPath: partial))
            let served = try await Curl.run(origin.url("/kept.txt"), proxy: restarted.proxyURL)
            #expect(served.text == "kept body")
            _ = await restarted.stop()
        }
    }
}
