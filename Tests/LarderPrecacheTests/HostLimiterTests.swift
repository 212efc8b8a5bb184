import Synchronization
import Testing

@testable import LarderPrecache

/// Downloads start in plan order on each host, whatever order workers reach the limiter in.
@Suite("Host limiter")
struct HostLimiterTests {
    @Test("first requests start in plan order per host even when they arrive in reverse; other hosts are not held up")
    func planOrder() async throws {
        let limiter = HostLimiter(connectionsPerHost: 2, spacing: .zero)
        limiter.expect((0..<6).map { (host: "a", position: $0) } + [(host: "b", position: 6)])
        let started = StartOrder()
        await withTaskGroup(of: Void.self) { group in
            for position in (0..<6).reversed() {
                group.addTask {
                    await limiter.acquire("a", position: position)
                    started.record(position)
                    try? await Task.sleep(for: .milliseconds(5))
                    limiter.release("a", position: position)
                }
                // Later positions arrive first.
                try? await Task.sleep(for: .milliseconds(10))
            }
            group.addTask {
                // Host b's turn does not wait for host a's.
                await limiter.acquire("b", position: 6)
                started.record(6)
                limiter.release("b", position: 6)
            }
        }
        let order = started.positions
        #expect(order.filter { $0 < 6 } == [0, 1, 2, 3, 4, 5])
        #expect(order.contains(6))
    }

    @Test("a retry takes a free slot without waiting for the next download's turn; requests outside the plan too")
    func retriesAndManifests() async throws {
        let limiter = HostLimiter(connectionsPerHost: 1, spacing: .zero)
        limiter.expect([(host: "a", position: 0), (host: "a", position: 1)])
        await limiter.acquire("a", position: 0)
        limiter.release("a", position: 0)
        // Position 1 has not arrived: the retry of 0 and a manifest go anyway.
        await limiter.acquire("a", position: 0)
        limiter.release("a", position: 0)
        await limiter.acquire("a")
        limiter.release("a", position: nil)
        await limiter.acquire("a", position: 1)
        limiter.release("a", position: 1)
    }

    @Test(
        "a download starts only within connectionsPerHost places of the earliest one not answered yet, so none arrives further out of order"
    )
    func answeredWindow() async throws {
        let limiter = HostLimiter(connectionsPerHost: 2, spacing: .zero)
        limiter.expect((0..<3).map { (host: "a", position: $0) })
        await limiter.acquire("a", position: 0)
        await limiter.acquire("a", position: 1)
        // 1 came back at once (a warm connection) while 0 waits for its handshake: a slot is free,
        // but 2 would be two places past 0.
        limiter.release("a", position: 1)
        let started = StartOrder()
        let third = Task {
            await limiter.acquire("a", position: 2)
            started.record(2)
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(started.positions.isEmpty, "2 started before 0 was answered")
        limiter.answered("a", position: 0)
        await third.value
        #expect(started.positions == [2])
        limiter.release("a", position: 2)
        limiter.release("a", position: 0)
    }
}

/// The order requests started in.
private final class StartOrder: Sendable {
    private let order = Mutex<[Int]>([])

    func record(_ position: Int) {
        self.order.withLock { $0.append(position) }
    }

    var positions: [Int] {
        self.order.withLock { $0 }
    }
}
