import Foundation
import GRDB
import LarderHTTP
import Synchronization

/// Recently looked-up entries kept in memory, so that a hit on a hot URL costs no index read.
///
/// Correctness: every change to the `entry` table committed through this store's index (any
/// connection of this process) clears the memo at once. Every process with the cache directory
/// open also counts its committed changes in the shared ``IndexChangeCounter``; a memoised lookup
/// holds only while that count is what it was before the lookup read the index, so another
/// process's write (a `larder precache` beside `larder serve`) ends it at once too. A lookup is
/// still trusted for at most ``lifetime``: a backstop for a change whose count never came (a
/// process killed between its commit and its count), or the whole bound when the counter could
/// not be mapped.
final class EntryMemo: TransactionObserver, Sendable {
    /// How long a memoised lookup is trusted when other processes' changes are counted.
    static let countedLifetime: TimeInterval = 30
    /// How long a memoised lookup is trusted when they are not (the counter could not be mapped).
    static let uncountedLifetime: TimeInterval = 1

    /// How long a memoised lookup is trusted.
    let lifetime: TimeInterval
    /// Changes committed by every process, when the counter could be mapped.
    private let changes: IndexChangeCounter?

    init(changes: IndexChangeCounter?, lifetime: TimeInterval? = nil) {
        self.changes = changes
        self.lifetime = lifetime ?? (changes == nil ? Self.uncountedLifetime : Self.countedLifetime)
    }
    /// At most this many keys are held; when full, the memo starts over (cheap, and bounded).
    static let capacity = 4096

    /// What a lookup must be read under to be remembered: this process's change count and the
    /// shared one, both taken before the index is read.
    struct Stamp: Sendable, Hashable {
        var generation: UInt64
        var sharedChanges: UInt64
    }

    private struct Memo {
        var entries: [CachedEntry]
        var loadedAt: TimeInterval
        var sharedChanges: UInt64
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

    /// The memoised lookup for `key` with how long it may be trusted, if it still holds.
    func lookup(for key: CacheKey, now: TimeInterval) -> RememberedLookup? {
        let sharedChanges = self.changes?.value ?? 0
        return self.state.withLock { state in
            guard let memo = state.memos[key.rawValue], now >= memo.loadedAt, now - memo.loadedAt < self.lifetime,
                memo.sharedChanges == sharedChanges
            else { return nil }
            return RememberedLookup(
                entries: memo.entries,
                stamp: Stamp(generation: state.generation, sharedChanges: sharedChanges),
                trustedUntil: memo.loadedAt + self.lifetime
            )
        }
    }

    /// Whether a lookup read under `stamp`, trusted until `trustedUntil`, still holds at `now`.
    func holds(_ stamp: Stamp, trustedUntil: TimeInterval, now: TimeInterval) -> Bool {
        now < trustedUntil && self.stamp == stamp
    }

    /// Remembers a lookup made at `now` under `stamp`, unless a change was committed since.
    func remember(_ entries: [CachedEntry], for key: CacheKey, loadedAt now: TimeInterval, stamp: Stamp) {
        guard (self.changes?.value ?? 0) == stamp.sharedChanges else { return }
        self.state.withLock { state in
            guard stamp.generation == state.generation else { return }
            if state.memos.count >= Self.capacity {
                state.memos.removeAll(keepingCapacity: true)
            }
            state.memos[key.rawValue] = Memo(entries: entries, loadedAt: now, sharedChanges: stamp.sharedChanges)
        }
    }

    /// The change counts now; a lookup read after this may be remembered under it.
    var stamp: Stamp {
        // The shared count first: a change counted after it was read makes the stamp stale.
        let sharedChanges = self.changes?.value ?? 0
        return Stamp(generation: self.state.withLock { $0.generation }, sharedChanges: sharedChanges)
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
        // One change is enough to know: the rest of the transaction's rows (an install batch's,
        // a game version's) are not reported one by one.
        self.stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        let changed = self.state.withLock { state in
            guard state.pendingChange else { return false }
            state.pendingChange = false
            state.generation &+= 1
            state.memos.removeAll(keepingCapacity: true)
            return true
        }
        if changed {
            self.changes?.increment()
        }
    }

    func databaseDidRollback(_ db: Database) {
        self.state.withLock { $0.pendingChange = false }
    }
}
