import Foundation
import LarderHTTP
import Logging
import Testing

@testable import LarderProxy
@testable import LarderStore

/// Last-use times are written in batches: those noted since the last batch must reach the index
/// when the recorder stops, as it does at every graceful shutdown.
@Suite("Usage recorder")
struct UsageRecorderTests {
    @Test("uses noted since the last batch are written when the recorder is cancelled, not lost")
    func finalFlushAfterCancellation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("usage-\(UUID().uuidString)").path
        let store = try Store(directory: directory)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let url = "http://usage.example/a"
        let key = try CacheKey(url: url)
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: Array("a".utf8))
        let head = StoredResponseHead(url: url, status: 200, headers: [], requestTime: Date(), responseTime: Date())
        _ = try await writer.commit(key: key, head: head, kind: .runtime, expectedLength: nil)
        let stored = try await Self.lastUsed(store)

        // A batch an hour away: only the final one can write the use.
        let recorder = UsageRecorder(store: store, interval: .seconds(3600), now: { Date() }, logger: Logger(label: "test"))
        let running = Task { await recorder.run() }
        recorder.recordUse(key)
        // Usually cancelled while it waits for its next batch; either way the use must be written.
        try await Task.sleep(for: .milliseconds(100))
        running.cancel()
        await running.value

        #expect(try await Self.lastUsed(store) > stored)
    }

    private static func lastUsed(_ store: Store) async throws -> Date {
        let page = try await store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: 10)
        return try #require(page.entries.first?.lastUsed)
    }
}
