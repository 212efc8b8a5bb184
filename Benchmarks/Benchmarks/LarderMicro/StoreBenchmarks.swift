import Benchmark
import LarderHTTP
import LarderStore

/// The store's lookups of a key: from memory (a key looked up in the last second), from the
/// index, and the index read by key alone, by store size.
func storeBenchmarks() {
    Benchmark(inHitOrder("Store.rememberedLookup(of:) memo hit")) { benchmark in
        let store = try await Stores.shared.store(entries: 100, trust: .always)
        let keys = try storedKeys(entries: 100)
        for key in keys {
            _ = try await store.variants(of: key)
        }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let lookup = store.rememberedLookup(of: keys[index % keys.count])
            try check(lookup?.entries.count == 1, "no remembered lookup of \(keys[index % keys.count])")
            blackHole(lookup)
        }
        benchmark.stopMeasurement()
    }

    Benchmark(inHitOrder("Store.variants(of:) memo hit")) { benchmark in
        let store = try await Stores.shared.store(entries: 100, trust: .always)
        let keys = try storedKeys(entries: 100)
        for key in keys {
            _ = try await store.variants(of: key)
        }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let entries = try await store.variants(of: keys[index % keys.count])
            try check(entries.count == 1, "\(entries.count) variants of \(keys[index % keys.count])")
            blackHole(entries)
        }
        benchmark.stopMeasurement()
    }

    for entries in [100, 100_000] {
        Benchmark(inHitOrder("Store.variants(of:) index read, \(entries) entries")) { benchmark in
            let store = try await Stores.shared.store(entries: entries, trust: .never)
            let keys = try storedKeys(entries: entries)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                let found = try await store.variants(of: keys[index % keys.count])
                try check(found.count == 1, "\(found.count) variants of \(keys[index % keys.count])")
                blackHole(found)
            }
            benchmark.stopMeasurement()
        }
    }

    for entries in [100, 100_000] {
        Benchmark(inHitOrder("Store.entry(for:) hit, \(entries) entries")) { benchmark in
            let store = try await Stores.shared.store(entries: entries)
            let keys = try storedKeys(entries: entries)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                let entry = try await store.entry(for: keys[index % keys.count])
                try check(entry?.bodySize == Int64(bodySize(entries: entries)), "no entry for \(keys[index % keys.count])")
                blackHole(entry)
            }
            benchmark.stopMeasurement()
        }
    }

    for entries in [100, 100_000] {
        Benchmark(inHitOrder("Store.entry(for:) miss, \(entries) entries")) { benchmark in
            let store = try await Stores.shared.store(entries: entries)
            let missing = try CacheKey(url: "https://elsewhere.example/not/stored.js")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let entry = try await store.entry(for: missing)
                try check(entry == nil, "an entry for \(missing)")
            }
            benchmark.stopMeasurement()
        }
    }
}

/// Keys of stored entries, spread over the store (1,000 of them, repeating in a small store).
private func storedKeys(entries: Int) throws -> [CacheKey] {
    try (0..<1_000).map { try CacheKey(url: assetURL(($0 * 7_919) % entries)) }
}
