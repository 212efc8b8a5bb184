import Foundation
import Synchronization
import Testing

@testable import LarderStore

@Suite("FlushPool")
struct FlushPoolTests {
    private struct Numbered: Error, Equatable {
        var number: Int
    }

    @Test("every item runs once, several at once, and the first error in the items' order is thrown")
    func everyItemOnceFirstErrorInOrder() throws {
        let counts = Mutex([Int](repeating: 0, count: 100))
        let inFlight = Mutex((now: 0, most: 0))
        #expect(throws: Numbered(number: 40)) {
            try FlushPool.shared.forEach(Array(0..<100)) { item in
                inFlight.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                // Long enough for the others to start meanwhile.
                usleep(2_000)
                inFlight.withLock { $0.now -= 1 }
                counts.withLock { $0[item] += 1 }
                if item == 70 || item == 40 { throw Numbered(number: item) }
            }
        }
        #expect(counts.withLock { $0 } == [Int](repeating: 1, count: 100))
        #expect(inFlight.withLock { $0.most } > 1)
    }

    @Test("one item runs on the caller, none runs nothing")
    func oneOrNone() throws {
        let ran = Mutex(0)
        try FlushPool.shared.forEach([Int]()) { _ in ran.withLock { $0 += 1 } }
        try FlushPool.shared.forEach([7]) { _ in ran.withLock { $0 += 1 } }
        #expect(ran.withLock { $0 } == 1)
    }
}
