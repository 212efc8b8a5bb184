import LarderHTTP
import LarderStore
import Synchronization

/// The keys being refreshed in the background, so that a burst of requests for one stale entry
/// starts one refresh.
final class BackgroundRefreshes: Sendable {
    private let keys = Mutex<Set<CacheKey>>([])

    /// Claims `key`; false when a refresh for it is already running.
    func begin(_ key: CacheKey) -> Bool {
        self.keys.withLock { $0.insert(key).inserted }
    }

    /// Releases `key`.
    func end(_ key: CacheKey) {
        _ = self.keys.withLock { $0.remove(key) }
    }
}
