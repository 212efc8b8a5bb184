import Foundation
import Synchronization

/// A few threads of its own that run a batch's flushes (`fdatasync`, `fsync`) at once.
///
/// One flush after another pays for a device flush each, and under other programs' disk traffic
/// each can take milliseconds; flushes in flight together share journal commits and device
/// flushes (the kernel merges them). Threads of its own, because the task threads are few and
/// must never wait for a disk.
final class FlushPool: @unchecked Sendable {
    /// The pool the store's barrier uses: enough flushes in flight for a game version's barrier
    /// (thousands of bodies at its switch) to share journal commits (8 left it a quarter slower
    /// on a journaled ext4, Benchmarks/RESULTS.md).
    static let shared = FlushPool(threads: 32)

    // `@unchecked Sendable`: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private let threads: Int
    /// How long a flush that waits for a disk takes at least, and one that does not at most.
    static let helpAfter: Duration = .microseconds(200)
    /// Whether the last batch's flushes each took less than ``helpAfter``.
    private let flushesAreQuick = Atomic(false)

    /// A pool of `threads` threads (one besides ``shared`` only for tests: they are never stopped).
    init(threads: Int) {
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
    /// is left: as many flushes in flight as the pool has threads, for a wake-up per helper and
    /// batch rather than one per item. Where the last batch's flushes were quick (tmpfs, a
    /// write-back cache: under ``helpAfter`` each) the caller starts alone and wakes the helpers
    /// only once this batch has taken longer than that. The caller waits for the items, not for
    /// the helpers: one that comes late finds nothing left.
    func forEach<Item: Sendable>(_ items: [Item], _ operation: @escaping @Sendable (Item) throws -> Void) throws {
        guard items.count > 1 else {
            try items.first.map(operation)
            return
        }
        let progress = NSCondition()
        nonisolated(unsafe) var errors = [(any Error)?](repeating: nil, count: items.count)
        nonisolated(unsafe) var next = 0
        nonisolated(unsafe) var done = 0
        nonisolated(unsafe) var timeInItems = Duration.zero
        /// Runs the next item; false when none was left.
        @Sendable func takeItem() -> Bool {
            progress.lock()
            let index = next
            next += 1
            progress.unlock()
            guard index < items.count else { return false }
            let started = ContinuousClock.now
            var failure: (any Error)?
            do { try operation(items[index]) } catch { failure = error }
            let took = ContinuousClock.now - started
            progress.lock()
            errors[index] = failure
            timeInItems += took
            done += 1
            if done == items.count { progress.signal() }
            progress.unlock()
            return true
        }
        @Sendable func callHelpers() {
            self.condition.lock()
            for _ in 0..<(min(self.threads, items.count) - 1) {
                self.jobs.append { while takeItem() {} }
                self.condition.signal()
            }
            self.condition.unlock()
        }
        let started = ContinuousClock.now
        var helpIsCalled = !self.flushesAreQuick.load(ordering: .relaxed)
        if helpIsCalled {
            callHelpers()
        }
        while takeItem() {
            if !helpIsCalled, ContinuousClock.now - started > Self.helpAfter {
                helpIsCalled = true
                callHelpers()
            }
        }
        progress.lock()
        while done < items.count {
            progress.wait()
        }
        let error = errors.lazy.compactMap({ $0 }).first
        self.flushesAreQuick.store(timeInItems / items.count < Self.helpAfter, ordering: .relaxed)
        progress.unlock()
        if let error {
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
