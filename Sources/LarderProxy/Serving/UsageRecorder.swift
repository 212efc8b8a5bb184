import Foundation
import LarderHTTP
import LarderStore
import Logging
import Synchronization

/// Remembers which entries were served and writes their last-used times in batches, so a hit
/// never waits on (or costs) a database write.
final class UsageRecorder: Sendable {
    private let pending = Mutex<[CacheKey: Date]>([:])
    private let store: Store
    private let interval: Duration
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// A recorder writing to `store` every `interval`, dating uses by `now` (the proxy's clock).
    init(store: Store, interval: Duration = .seconds(5), now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    /// Notes that `key` was served now. O(1), no I/O.
    func recordUse(_ key: CacheKey) {
        let now = self.now()
        self.pending.withLock { $0[key] = now }
    }

    /// Flushes every `interval` until cancelled, then once more.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: self.interval)
            await self.flush()
        }
        // In a task of its own: the store refuses work from a cancelled task, and this one is.
        await Task { await self.flush() }.value
    }

    /// Writes what is pending. From a cancelled task (a shutdown) it writes nothing: the store
    /// would refuse, and what is pending waits for the final flush of ``run()``.
    func flush() async {
        guard !Task.isCancelled else { return }
        let batch = self.pending.withLock { pending -> [CacheKey: Date] in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batch.isEmpty else { return }
        do {
            try await self.store.recordUse(batch)
        } catch is CancellationError {
            // Cancelled while writing: back to pending for the final flush (a newer use wins).
            self.pending.withLock { pending in
                pending.merge(batch) { max($0, $1) }
            }
        } catch {
            self.logger.warning("cannot record last use", metadata: ["entries": "\(batch.count)", "error": "\(error)"])
        }
    }
}
