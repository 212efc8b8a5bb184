/// A dictionary bounded to `capacity` entries that forgets the least recently used entry when full.
///
/// Every operation but listing takes constant time: entries sit in a list ordered by use, linked
/// through their indices, so a cache that anyone can fill (the origins a page makes the proxy try)
/// costs no more per new key when full than when empty.
public struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    /// How many of the least recently used entries eviction looks at for one not preferred
    /// (``insert(_:for:preferablyKeeping:)``).
    public static var preferenceReach: Int { 64 }

    fileprivate struct Slot {
        var key: Key
        var value: Value
        /// The slot used just before (more recently) and just after (less recently); -1 for none.
        var newer: Int
        var older: Int
    }

    private var indices: [Key: Int] = [:]
    private var slots: [Slot] = []
    /// The most and the least recently used slots; -1 when empty.
    private var newest = -1
    private var oldest = -1
    /// The most entries kept.
    public let capacity: Int

    /// A cache of at most `capacity` entries (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The number of entries.
    public var count: Int { self.slots.count }

    /// Whether `key` has an entry (which does not count as a use).
    public func contains(_ key: Key) -> Bool {
        self.indices[key] != nil
    }

    /// The value for `key`, marking it most recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let index = self.indices[key] else {
            return nil
        }
        self.moveToNewest(index)
        return self.slots[index].value
    }

    /// Stores `value` for `key` as the most recently used entry, evicting the least recently used one if full.
    ///
    /// Entries for which `isPreferred` holds are passed over while one that is not is among the
    /// ``preferenceReach`` least recently used, so they outlast the others without loosening the
    /// bound or making an insertion cost more than that many looks.
    public mutating func insert(_ value: Value, for key: Key, preferablyKeeping isPreferred: (Value) -> Bool = { _ in false }) {
        if let index = self.indices[key] {
            self.slots[index].value = value
            self.moveToNewest(index)
            return
        }
        guard self.slots.count >= self.capacity else {
            self.slots.append(Slot(key: key, value: value, newer: -1, older: -1))
            self.indices[key] = self.slots.count - 1
            self.link(self.slots.count - 1)
            return
        }
        // Full: the slot of the entry evicted takes the new one.
        var victim = self.oldest
        var candidate = self.oldest
        for _ in 0..<Self.preferenceReach where candidate >= 0 {
            if !isPreferred(self.slots[candidate].value) {
                victim = candidate
                break
            }
            candidate = self.slots[candidate].newer
        }
        self.unlink(victim)
        self.indices[self.slots[victim].key] = nil
        self.slots[victim] = Slot(key: key, value: value, newer: -1, older: -1)
        self.indices[key] = victim
        self.link(victim)
    }

    /// Every entry, in no order.
    public var contents: [Key: Value] {
        Dictionary(uniqueKeysWithValues: self.slots.map { ($0.key, $0.value) })
    }

    /// Every entry, most recently used first.
    public var mostRecentFirst: [(key: Key, value: Value)] {
        var entries: [(key: Key, value: Value)] = []
        entries.reserveCapacity(self.slots.count)
        var index = self.newest
        while index >= 0 {
            entries.append((self.slots[index].key, self.slots[index].value))
            index = self.slots[index].older
        }
        return entries
    }

    private mutating func moveToNewest(_ index: Int) {
        guard index != self.newest else { return }
        self.unlink(index)
        self.link(index)
    }

    /// Puts the unlinked slot at `index` first in the order of use.
    private mutating func link(_ index: Int) {
        self.slots[index].newer = -1
        self.slots[index].older = self.newest
        if self.newest >= 0 {
            self.slots[self.newest].newer = index
        }
        self.newest = index
        if self.oldest < 0 {
            self.oldest = index
        }
    }

    /// Takes the slot at `index` out of the order of use.
    private mutating func unlink(_ index: Int) {
        let (newer, older) = (self.slots[index].newer, self.slots[index].older)
        if newer >= 0 {
            self.slots[newer].older = older
        } else {
            self.newest = older
        }
        if older >= 0 {
            self.slots[older].newer = newer
        } else {
            self.oldest = newer
        }
    }
}

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
extension LeastRecentlyUsedCache.Slot: Sendable where Key: Sendable, Value: Sendable {}
