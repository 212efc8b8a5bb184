/// A dictionary bounded to `capacity` entries that forgets the least recently used entry when full.
///
/// Eviction scans all entries, which is cheap at the sizes used (a few thousand upstream origins, a
/// thousand hosts of intercepted TLS, hundreds of app origins and page bodies read on /dev/offline): a scan of
/// 4,096 entries takes microseconds, once per new key of a full cache.
public struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// The most entries kept.
    public let capacity: Int

    /// A cache of at most `capacity` entries (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The number of entries.
    public var count: Int { self.entries.count }

    /// Whether `key` has an entry (which does not count as a use).
    public func contains(_ key: Key) -> Bool {
        self.entries[key] != nil
    }

    /// The value for `key`, marking it most recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let entry = self.entries[key] else {
            return nil
        }
        self.clock += 1
        self.entries[key] = (entry.value, self.clock)
        return entry.value
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently used one if full.
    ///
    /// Entries for which `isPreferred` holds are evicted only when every entry is preferred, so they
    /// outlast the others without loosening the bound.
    public mutating func insert(_ value: Value, for key: Key, preferablyKeeping isPreferred: (Value) -> Bool = { _ in false }) {
        self.clock += 1
        if self.entries[key] == nil, self.entries.count >= self.capacity,
            let oldest = self.entries.min(by: { Self.evictionOrder($0.value, isPreferred) < Self.evictionOrder($1.value, isPreferred) })?
                .key
        {
            self.entries[oldest] = nil
        }
        self.entries[key] = (value, self.clock)
    }

    /// Every entry, in no order.
    public var contents: [Key: Value] {
        self.entries.mapValues(\.value)
    }

    /// Every entry, most recently used first.
    public var mostRecentFirst: [(key: Key, value: Value)] {
        self.entries.sorted { $0.value.lastUse > $1.value.lastUse }.map { ($0.key, $0.value.value) }
    }

    /// Eviction goes by this, smallest first: entries not preferred, then the least recently used.
    private static func evictionOrder(_ entry: (value: Value, lastUse: UInt64), _ isPreferred: (Value) -> Bool) -> (Int, UInt64) {
        (isPreferred(entry.value) ? 1 : 0, entry.lastUse)
    }
}

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
