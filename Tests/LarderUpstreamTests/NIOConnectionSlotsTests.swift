import NIOConcurrencyHelpers
import Testing

@testable import LarderNIOUpstream

/// The NIO client's admission of transfers within its connection limits: a host at its limit holds
/// its own transfers in line and nobody else's.
@Suite("NIOConnectionSlots")
struct NIOConnectionSlotsTests {
    /// Starts `acquire(host:)` in a task and reports when it returns.
    private static func waiting(_ slots: NIOConnectionSlots, host: String, admitted: NIOLockedValueBox<[String]>) -> Task<Void, any Error> {
        Task {
            try await slots.acquire(host: host)
            admitted.withLockedValue { $0.append(host) }
        }
    }

    @Test("a host at its limit waits for one of its own to end, while another host starts at once")
    func perHostLineDoesNotBlockOthers() async throws {
        let slots = NIOConnectionSlots(perHost: 1, total: 0)
        let admitted = NIOLockedValueBox<[String]>([])
        try await slots.acquire(host: "a")
        let secondA = Self.waiting(slots, host: "a", admitted: admitted)
        while slots.waiting == 0 { await Task.yield() }

        let b = Self.waiting(slots, host: "b", admitted: admitted)
        let deadline = ContinuousClock.now + .seconds(10)
        while admitted.withLockedValue({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(admitted.withLockedValue { $0 } == ["b"], "b starts while a's second transfer waits, before anything ends")

        slots.release(host: "b")
        #expect(slots.waiting == 1, "b's end admits nothing of a's")
        slots.release(host: "a")
        try await secondA.value
        try await b.value
        #expect(admitted.withLockedValue { $0 } == ["b", "a"])
    }

    @Test("the total limit holds every host's transfers in the order they came")
    func totalLimitInOrder() async throws {
        let slots = NIOConnectionSlots(perHost: 0, total: 1)
        let admitted = NIOLockedValueBox<[String]>([])
        try await slots.acquire(host: "a")
        let b = Self.waiting(slots, host: "b", admitted: admitted)
        while slots.waiting < 1 { await Task.yield() }
        let c = Self.waiting(slots, host: "c", admitted: admitted)
        while slots.waiting < 2 { await Task.yield() }

        slots.release(host: "a")
        try await b.value
        #expect(admitted.withLockedValue { $0 } == ["b"])
        slots.release(host: "b")
        try await c.value
        #expect(admitted.withLockedValue { $0 } == ["b", "c"])
    }

    @Test("a waiting transfer whose task is cancelled leaves the line with CancellationError")
    func cancelledWaiterLeaves() async throws {
        let slots = NIOConnectionSlots(perHost: 1, total: 0)
        try await slots.acquire(host: "a")
        let waiter = Task { try await slots.acquire(host: "a") }
        while slots.waiting == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(slots.waiting == 0)
    }
}
