import Foundation
import LarderHTTP
import LarderStore
import Testing

/// Bodies finishing together are committed in shared transactions: each still succeeds or fails
/// on its own, and the index and its counters come out exact.
struct GroupCommitTests {
    @Test("200 bodies committed at once are all stored; one whose file vanished fails alone")
    func concurrentCommitsSucceedOrFailAlone() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let count = 200
            let failing = 137
            let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<count {
                    let writer = try store.makeBodyWriter()
                    try writer.write(contentsOf: sampleBody(count: 1_000 + index, seed: UInt8(index % 251)))
                    if index == failing {
                        try FileManager.default.removeItem(atPath: writer.temporaryPath)
                    }
                    let url = "http://site.example/group/\(index).bin"
                    nonisolated(unsafe) let handedOver = writer
                    group.addTask {
                        do {
                            _ = try await handedOver.commit(
                                key: try CacheKey(url: url), head: sampleHead(url: url), kind: .precached, expectedLength: nil)
                            return (index, true)
                        } catch {
                            return (index, false)
                        }
                    }
                }
                var results: [Int: Bool] = [:]
                for try await (index, stored) in group { results[index] = stored }
                return results
            }
            #expect(results.filter { !$0.value }.map(\.key) == [failing])
            for index in [0, 1, 99, 136, 138, 199] {
                #expect(
                    try await store.body(at: "http://site.example/group/\(index).bin")
                        == sampleBody(count: 1_000 + index, seed: UInt8(index % 251)))
            }
            #expect(try await store.body(at: "http://site.example/group/\(failing).bin") == nil)
            let totals = try await store.totals()
            #expect(totals.entries == count - 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/tmp").isEmpty)
        }
    }
}
