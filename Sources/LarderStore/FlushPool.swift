import Foundation

/// A few threads of its own that run a batch's flushes (`fdatasync`, `fsync`) at once.
///
/// One flush after another pays for a device flush each, and under other programs' disk traffic
/// each can take milliseconds; flushes in flight together share journal commits and device
/// flushes (the kernel merges them). Threads of its own, because the task threads are few and
/// must never wait for a disk.
final class FlushPool: @unchecked Sendable {
    /// The pool the store's barrier uses.
    static let shared = FlushPool(threads: 8)

    // `@unchecked Sendable`: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private let threads: Int

    private init(threads: Int) {
        self.threads = threads
        for number in 0..<threads {
            let thread = Thread { [self] in self.runJobs() }
            thread.name = "larder-flush-\(number)"
            thread.start()
        }
    }

    /// Runs `operation` for each of `items`, several at once, and waits for all of them; then
    /// throws the first error (in the order of `items`), if any.
    ///
    /// The calling thread and up to `threads - 1` of the pool's each take the next item until none
    /// is left: as many flushes in flight as the pool has threads, for a few wake-ups per batch
    /// rather than one per item.
    func forEach<Item: Sendable>(_ items: [Item], _ operation: @escaping @Sendable (Item) throws -> Void) throws {
        guard items.count > 1 else {
            try items.first.map(operation)
            return
        }
        let finished = NSCondition()
        nonisolated(unsafe) var errors = [(any Error)?](repeating: nil, count: items.count)
        nonisolated(unsafe) var next = 0
        nonisolated(unsafe) var helpersRunning = min(self.threads, items.count) - 1
        @Sendable func takeItems() {
            while true {
                finished.lock()
                let index = next
                next += 1
                finished.unlock()
                guard index < items.count else { return }
                var failure: (any Error)?
                do { try operation(items[index]) } catch { failure = error }
                if let failure {
                    finished.lock()
                    errors[index] = failure
                    finished.unlock()
                }
            }
        }
        self.condition.lock()
        for _ in 0..<helpersRunning {
            self.jobs.append {
                takeItems()
                finished.lock()
                helpersRunning -= 1
                if helpersRunning == 0 { finished.signal() }
                finished.unlock()
            }
        }
        self.condition.broadcast()
        self.condition.unlock()
        takeItems()
        finished.lock()
        while helpersRunning > 0 {
            finished.wait()
        }
        finished.unlock()
        if let error = errors.lazy.compactMap({ $0 }).first {
            throw error
        }
    }

    private func runJobs() {
        while true {
            self.condition.lock()
            while self.jobs.isEmpty {
                self.condition.wait()
            }
            let job = self.jobs.removeLast()
            self.condition.unlock()
            job()
        }
    }
}
