import Foundation
import GRDB
import LarderHTTP
import Synchronization

/// Recently looked-up entries kept in memory, so that a hit on a hot URL costs no index read.
///
/// Correctness: every change to the `entry` table committed through this store's index (any
/// connection of this process) clears the memo at once. Changes made by another process (a
/// `larder precache` beside `larder serve`) cannot be observed; a memoised lookup is trusted
/// for at most ``lifetime`` (a second unless a test says otherwise), so those are seen within that time.
final class EntryMemo: TransactionObserver, Sendable {
    /// How long a memoised lookup is trusted by default (bounds the staleness of other processes' writes).
    static let defaultLifetime: TimeInterval = 1
    /// How long a memoised lookup is trusted.
    let lifetime: TimeInterval

    init(lifetime: TimeInterval = EntryMemo.defaultLifetime) {
        self.lifetime = lifetime
    }
    /// At most this many keys are held; when full, the memo starts over (cheap, and bounded).
    static let capacity = 4096

    private struct Memo {
        var entries: [CachedEntry]
        var loadedAt: TimeInterval
    }

    private struct State {
        var memos: [String: Memo] = [:]
        var pendingChange = false
        /// Counts committed changes.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The memoised lookup for `key`, if it is recent enough.
    func entries(for key: CacheKey, now: TimeInterval) -> [CachedEntry]? {
        self.lookup(for: key, now: now)?.entries
    }

    /// The memoised lookup for `key` with how long it may be trusted, if it is recent enough.
    func lookup(for key: CacheKey, now: TimeInterval) -> RememberedLookup? {
        self.state.withLock { state in
            guard let memo = state.memos[key.rawValue], now >= memo.loadedAt, now - memo.loadedAt < self.lifetime else { return nil }
            return RememberedLookup(entries: memo.entries, generation: state.generation, trustedUntil: memo.loadedAt + self.lifetime)
        }
    }

    /// Whether a lookup of `generation`, trusted until `trustedUntil`, still holds at `now`.
    func holds(generation: UInt64, trustedUntil: TimeInterval, now: TimeInterval) -> Bool {
        now < trustedUntil && self.state.withLock { generation == $0.generation }
    }

    /// Remembers a lookup made at `now`, unless a change was committed after `generation` was read.
    func remember(_ entries: [CachedEntry], for key: CacheKey, loadedAt now: TimeInterval, generation: UInt64) {
        self.state.withLock { state in
            guard generation == state.generation else { return }
            if state.memos.count >= Self.capacity {
                state.memos.removeAll(keepingCapacity: true)
            }
            state.memos[key.rawValue] = Memo(entries: entries, loadedAt: now)
        }
    }

    /// Counts committed changes; a lookup that started before a change must not be remembered.
    var generation: UInt64 {
        self.state.withLock { $0.generation }
    }

    // MARK: TransactionObserver (called on the writer's queue)

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table), .delete(let table):
            return table == "entry"
        case .update(let table, let columns):
            // Last-used times change nothing a lookup returns.
            return table == "entry" && columns != ["last_used"]
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        self.state.withLock { $0.pendingChange = true }
    }

    func databaseDidCommit(_ db: Database) {
        self.state.withLock { state in
            guard state.pendingChange else { return }
            state.pendingChange = false
            state.generation &+= 1
            state.memos.removeAll(keepingCapacity: true)
        }
    }

    func databaseDidRollback(_ db: Database) {
        self.state.withLock { $0.pendingChange = false }
    }
}
