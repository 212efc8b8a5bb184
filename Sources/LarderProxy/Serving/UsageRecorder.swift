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

    /// A recorder writing to `store` every `interval`; each use is dated by the caller's clock.
    init(store: Store, interval: Duration = .seconds(5), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// The one place an answer from a stored response is accounted, on every hit path: its `age`
    /// and hit `Cache-Status` (``ProxyAnswerFields/hit(freshness:now:detail:)``), and its use at
    /// `now` noted for eviction. O(1), no I/O.
    func answered(_ key: CacheKey, freshness: ResponseFreshness, now: Date, detail: String?) -> (age: Int, cacheStatus: CacheStatus) {
        self.pending.withLock { $0[key] = now }
        return ProxyAnswerFields.hit(freshness: freshness, now: now, detail: detail)
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
