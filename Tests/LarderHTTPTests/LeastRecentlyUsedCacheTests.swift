import LarderHTTP
import Testing

/// The bounded dictionary behind the proxy's per-host tables: the least recently used entry goes,
/// preferred entries last, and the bound holds whatever is preferred.
@Suite("Least recently used cache")
struct LeastRecentlyUsedCacheTests {
    @Test(
        "inserting past the capacity evicts the least recently used entry not preferred, or the least recently used of all",
        arguments: [
            // (preferred keys, the key evicted when "d" comes to a cache of a, b, c with a read last)
            (Set<String>(), "b"),
            (["b"], "c"),
            (["b", "c"], "a"),
            (["a", "b", "c"], "b"),
        ] as [(Set<String>, String)]
    )
    func eviction(_ preferred: Set<String>, _ evicted: String) {
        var cache = LeastRecentlyUsedCache<String, String>(capacity: 3)
        for key in ["a", "b", "c"] {
            cache.insert(key, for: key)
        }
        _ = cache.value(for: "a")
        cache.insert("d", for: "d", preferablyKeeping: { preferred.contains($0) })
        #expect(cache.count == 3)
        #expect(Set(cache.contents.keys) == Set(["a", "b", "c", "d"]).subtracting([evicted]))
    }

    @Test("preferred entries are passed over only within reach of the oldest: the bound holds at constant cost")
    func preferenceReach() {
        let capacity = LeastRecentlyUsedCache<Int, Bool>.preferenceReach + 6
        var cache = LeastRecentlyUsedCache<Int, Bool>(capacity: capacity)
        for key in 0..<capacity {
            cache.insert(key == 0 ? false : true, for: key)
        }
        // The one entry not preferred, used last, is out of reach: the oldest preferred one goes.
        _ = cache.value(for: 0)
        cache.insert(true, for: capacity, preferablyKeeping: { $0 })
        #expect(cache.count == capacity)
        #expect(cache.contains(0))
        #expect(!cache.contains(1))
    }

    @Test("entries list most recently used first")
    func recency() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 4)
        for (index, key) in ["a", "b", "c"].enumerated() {
            cache.insert(index, for: key)
        }
        _ = cache.value(for: "a")
        #expect(cache.mostRecentFirst.map(\.key) == ["a", "c", "b"])
    }
}
