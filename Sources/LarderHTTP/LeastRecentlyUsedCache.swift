/// A dictionary bounded to `capacity` entries that forgets the least recently used entry when full.
///
/// Eviction scans all entries, which is cheap at the sizes used (a thousand hosts of intercepted TLS, each
/// insertion beside the signing of a certificate; hundreds of page bodies read on /dev/offline).
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
    public mutating func insert(_ value: Value, for key: Key) {
        self.clock += 1
        if self.entries[key] == nil, self.entries.count >= self.capacity,
            let oldest = self.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            self.entries[oldest] = nil
        }
        self.entries[key] = (value, self.clock)
    }
}

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
