import Benchmark
import Foundation
import LarderStore

// Micro benchmarks of the per-request work of a cache hit: the key of the request URL, and the
// index lookup of that key. Each sample runs 1,000 operations (scalingFactor .kilo): divide the
// time and the malloc count by 1,000 for one operation.

/// URLs shaped like the assets a game loads (the shape `larder debug fill-index` writes).
func assetURL(_ index: Int) -> String {
    "https://cdn\(index % 10).example/games/game-\(index % 1000)/assets/file-\(index)-\(String(index, radix: 36)).js"
}

/// A store in a temporary folder (in /dev/shm when there is one, so filling it is quick) with
/// `count` runtime entries of small bodies, written through the ordinary write path.
func makeStore(entries count: Int) async throws -> (Store, String) {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let directory = "\(base)/larder-micro-\(count)-\(UUID().uuidString)"
    let store = try Store(directory: directory)
    for index in 0..<count {
        let url = assetURL(index)
        let body = Array("entry \(index)\n".utf8)
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: body)
        let head = StoredResponseHead(
            url: url,
            status: 200,
            headers: [
                HeaderField(name: "Content-Type", value: "application/javascript"),
                HeaderField(name: "Content-Length", value: String(body.count)),
                HeaderField(name: "Cache-Control", value: "max-age=3600"),
            ],
            requestTime: Date(),
            responseTime: Date()
        )
        _ = try await writer.commit(key: try CacheKey(url: url), head: head, kind: .runtime, expectedLength: Int64(body.count))
    }
    return (store, directory)
}

/// The stores the lookup benchmarks use, made once, removed at exit.
actor Stores {
    static let shared = Stores()
    private var made: [Int: Store] = [:]
    private var directories: [String] = []

    func store(entries: Int) async throws -> Store {
        if let store = self.made[entries] {
            return store
        }
        let (store, directory) = try await makeStore(entries: entries)
        self.made[entries] = store
        self.directories.append(directory)
        return store
    }

    func removeAll() throws {
        for store in self.made.values {
            try store.close()
        }
        for directory in self.directories {
            try? FileManager.default.removeItem(atPath: directory)
        }
        self.made = [:]
        self.directories = []
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    let plain = "https://cdn.example/games/flipart/assets/index-Bx12.js"
    let messy = "HTTPS://CDN.Example:443/games/./flipart/../flipart/assets/%7Eindex-Bx12.js?v=2&utm_source=x&lang=en#gameplay=1a2b"
    let keys = (0..<1_000).map { try! CacheKey(url: assetURL($0 * 7)) }

    Benchmark("CacheKey(url:) plain asset URL") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try CacheKey(url: plain))
        }
    }

    Benchmark("CacheKey(url:) upper case, default port, dot segments, escapes, utm_, fragment") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try CacheKey(url: messy))
        }
    }

    Benchmark("HTTPURL(parsing:) plain asset URL") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try HTTPURL(parsing: plain))
        }
    }

    for entries in [1_000, 100_000] {
        Benchmark("Store.entry(for:) hit, \(entries) entries") { benchmark in
            let store = try await Stores.shared.store(entries: entries)
            // Keys of stored entries (every 7th of the first 7,000; all below 1,000 entries wrap).
            let stored = keys.map { key -> CacheKey in
                entries >= 7_000 ? key : try! CacheKey(url: assetURL(Int.random(in: 0..<entries)))
            }
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                blackHole(try await store.entry(for: stored[index % stored.count]))
            }
            benchmark.stopMeasurement()
        }

        Benchmark("Store.entry(for:) miss, \(entries) entries") { benchmark in
            let store = try await Stores.shared.store(entries: entries)
            let missing = try CacheKey(url: "https://elsewhere.example/not/stored.js")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try await store.entry(for: missing))
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark.teardown = {
        try? await Stores.shared.removeAll()
    }
}
