import Foundation
import Synchronization
import Testing

@testable import LarderStore

/// Each test has a pool of its own: the store's tests running beside them keep `FlushPool.shared`
/// busy with their own flushes, which would make "several at once" a matter of timing.
@Suite("FlushPool")
struct FlushPoolTests {
    private struct Numbered: Error, Equatable {
        var number: Int
    }

    /// Waits up to 10 s for `condition`.
    private static func waitFor(_ condition: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline {
            usleep(1_000)
        }
    }

    @Test("every item runs once, several at once, and the first error in the items' order is thrown")
    func everyItemOnceFirstErrorInOrder() throws {
        let pool = FlushPool(threads: 4)
        let counts = Mutex([Int](repeating: 0, count: 100))
        let inFlight = Mutex((now: 0, most: 0))
        #expect(throws: Numbered(number: 40)) {
            try pool.forEach(Array(0..<100)) { item in
                inFlight.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                // The first item is slow, as a flush that waits for a disk is; after it the pool
                // helps, and the items wait for a helper's (however late its thread is scheduled).
                usleep(2_000)
                if item > 0 {
                    Self.waitFor { inFlight.withLock { $0.most } > 1 }
                }
                inFlight.withLock { $0.now -= 1 }
                counts.withLock { $0[item] += 1 }
                if item == 70 || item == 40 { throw Numbered(number: item) }
            }
        }
        #expect(counts.withLock { $0 } == [Int](repeating: 1, count: 100))
        #expect(inFlight.withLock { $0.most } > 1)
    }

    @Test("with every pool thread busy in other batches, a batch is run by its caller alone and does not wait for them")
    func busyPoolCallerAlone() throws {
        let pool = FlushPool(threads: 4)
        let gate = Mutex(false)
        let blocked = Mutex(0)
        let busyBatchesDone = DispatchGroup()
        // Two batches of blocked items: each caller and all 4 pool threads end up inside one.
        for _ in 0..<2 {
            busyBatchesDone.enter()
            Thread.detachNewThread {
                try? pool.forEach(Array(0..<8)) { _ in
                    blocked.withLock { $0 += 1 }
                    Self.waitFor { gate.withLock { $0 } }
                    blocked.withLock { $0 -= 1 }
                }
                busyBatchesDone.leave()
            }
        }
        Self.waitFor { blocked.withLock { $0 } == 2 + 4 }
        #expect(blocked.withLock { $0 } == 6, "both callers and the pool's 4 threads are busy")

        let counts = Mutex([Int](repeating: 0, count: 50))
        let inFlight = Mutex((now: 0, most: 0))
        try pool.forEach(Array(0..<50)) { item in
            inFlight.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            usleep(500)
            inFlight.withLock { $0.now -= 1 }
            counts.withLock { $0[item] += 1 }
        }
        let stillBlocked = blocked.withLock { $0 }
        gate.withLock { $0 = true }
        busyBatchesDone.wait()
        #expect(stillBlocked == 6, "the batch finished while the pool was still busy")
        #expect(counts.withLock { $0 } == [Int](repeating: 1, count: 50))
        #expect(inFlight.withLock { $0.most } == 1)
    }

    @Test("one item runs on the caller, none runs nothing")
    func oneOrNone() throws {
        let pool = FlushPool(threads: 2)
        let ran = Mutex(0)
        try pool.forEach([Int]()) { _ in ran.withLock { $0 += 1 } }
        try pool.forEach([7]) { _ in ran.withLock { $0 += 1 } }
        #expect(ran.withLock { $0 } == 1)
    }
}
