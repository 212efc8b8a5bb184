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

    init(store: Store, interval: Duration = .seconds(5), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Notes that `key` was served now. O(1), no I/O.
    func recordUse(_ key: CacheKey) {
        let now = Date()
        self.pending.withLock { $0[key] = now }
    }

    /// Flushes every `interval` until cancelled, then once more.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: self.interval)
            await self.flush()
        }
        await self.flush()
    }

    /// Writes what is pending.
    func flush() async {
        let batch = self.pending.withLock { pending -> [CacheKey: Date] in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batch.isEmpty else { return }
        do {
            try await self.store.recordUse(batch)
        } catch {
            self.logger.warning("cannot record last use", metadata: ["entries": "\(batch.count)", "error": "\(error)"])
        }
    }
}
