import Benchmark
import LarderHTTP
import LarderProxy
import NIOHTTP1

/// From the request target to the cache key: parsing it, classifying the request, normalising
/// the URL into its key.
func requestBenchmarks() {
    for (shape, url) in [("plain asset URL", plainURL), ("messy URL", messyURL)] {
        Benchmark(inHitOrder("HTTPURL(parsing:) \(shape)")) { benchmark in
            for _ in benchmark.scaledIterations {
                let parsed = try HTTPURL(parsing: url)
                try check(parsed.host == "cdn.example", "\(url) parsed to host \(parsed.host)")
                blackHole(parsed)
            }
        }
    }

    let own = RequestRoute.OwnAuthorities(port: 8080, listenHost: "127.0.0.1")
    let rules = RequestRoute.Rules()
    let head = requestHead(plainURL)
    Benchmark(inHitOrder("RequestRoute.classify absolute-form GET")) { benchmark in
        for _ in benchmark.scaledIterations {
            let route = RequestRoute.classify(head, own: own, rules: rules)
            guard case .forward(let url) = route else {
                throw WrongResult(description: "\(plainURL) classified as \(route)")
            }
            blackHole(url)
        }
    }

    let keyed = [
        ("plain asset URL", plainURL, plainURL),
        ("messy URL", messyURL, "https://cdn.example/games/flipart/assets/~index-Bx12.js?v=2&lang=en"),
    ]
    for (shape, url, expected) in keyed {
        Benchmark(inHitOrder("CacheKey(url:filter:) \(shape)")) { benchmark in
            let parsed = try HTTPURL(parsing: url)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let key = CacheKey(url: parsed, filter: .default)
                try check(key.rawValue.utf8.count == expected.utf8.count, "\(url) keyed as \(key), not \(expected)")
                blackHole(key)
            }
            benchmark.stopMeasurement()
            try check(CacheKey(url: parsed, filter: .default).rawValue == expected, "\(url) is not keyed as \(expected)")
        }
    }
}
