import Foundation
import LarderHTTP
import LarderStore
import Logging
import ServiceLifecycle
import Testing

@testable import LarderProxy

@Suite("BackgroundWork: work the server left finishes before the store closes")
struct BackgroundWorkTests {
    @Test("graceful shutdown lets running work finish with the store, then closes the store")
    func workFinishesBeforeTheStoreCloses() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("background-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let background = BackgroundWork()
        // In the order `larder serve` gives them: the store stops after the work.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [StoreService(store: store), background], logger: Logger(label: "test"))
        )
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let (outcomes, report) = AsyncStream.makeStream(of: Bool.self)
        let url = "http://a.example/late"
        background.submit {
            start.yield()
            // Still working when shutdown begins; then it touches the store.
            try? await Task.sleep(for: .milliseconds(300))
            do {
                let writer = try store.makeBodyWriter()
                try writer.write(contentsOf: Array("late".utf8))
                let head = StoredResponseHead(url: url, status: 200, headers: [], requestTime: Date(), responseTime: Date())
                _ = try await writer.commit(key: try CacheKey(url: url), head: head, kind: .runtime, expectedLength: 4)
                report.yield(true)
            } catch {
                report.yield(false)
            }
        }

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var running = started.makeAsyncIterator()
            await running.next()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        var stored = outcomes.makeAsyncIterator()
        #expect(await stored.next() == true, "the work stored its entry: the store was still open")
        await #expect(throws: (any Error).self, "the store closed once the work was done") {
            _ = try await store.totals()
        }
    }
}
