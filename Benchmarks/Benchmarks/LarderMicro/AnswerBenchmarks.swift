import Benchmark
import Foundation
import LarderHTTP
@_spi(Benchmarks) import LarderProxy
import LarderStore
import NIOCore
import NIOHTTP1

/// From a stored entry to the answer's head: its freshness, its `Cache-Status`, the plan of the
/// answer for the request, and the head's bytes.
func answerBenchmarks() {
    Benchmark(inHitOrder("ResponseFreshness from stored headers")) { benchmark in
        let entry = try await storedEntry()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let freshness = ResponseFreshness(
                status: entry.status,
                header: { name in entry.headers.filter { $0.hasName(name) }.map(\.value) },
                requestTime: entry.requestTime,
                responseTime: entry.responseTime
            )
            try check(freshness.lifetime == 86_400, "a lifetime of \(freshness.lifetime) s from max-age=86400")
            blackHole(freshness)
        }
        benchmark.stopMeasurement()
    }

    Benchmark(inHitOrder("ForwardProxy.freshness(of:) memo hit (per stored head)")) { benchmark in
        let entry = try await storedEntry()
        let path = BenchmarkHitPath(store: try await Stores.shared.store(entries: 100))
        _ = path.freshness(of: entry)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let freshness = path.freshness(of: entry)
            try check(freshness.lifetime == 86_400, "a lifetime of \(freshness.lifetime) s from max-age=86400")
            blackHole(freshness)
        }
        benchmark.stopMeasurement()
    }

    Benchmark(inHitOrder("CacheStatus hit with ttl, formatted")) { benchmark in
        for index in benchmark.scaledIterations {
            let value = CacheStatus.hit(ttl: 86_399 - index).description
            try check(value.utf8.count >= 21, "Cache-Status \(value)")
            blackHole(value)
        }
        try check(CacheStatus.hit(ttl: 86_399).description == "larder; hit; ttl=86399", "not larder; hit; ttl=86399")
    }

    let plans: [(name: String, extra: [(String, String)], status: Int, body: StoredAnswer.Body)] = [
        ("plain GET (200)", [], 200, .bytes(0..<1024)),
        ("conditional GET (If-None-Match, 304)", [("If-None-Match", etag(0))], 304, .none),
        ("Range GET (bytes=0-99, 206)", [("Range", "bytes=0-99")], 206, .bytes(0..<100)),
    ]
    for plan in plans {
        Benchmark(inHitOrder("StoredAnswer.plan \(plan.name)")) { benchmark in
            let entry = try await storedEntry()
            let head = requestHead(assetURL(0), extra: plan.extra)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                // As the ordinary path plans a hit (ForwardProxy.serveCached).
                let answer = StoredAnswer.plan(
                    entry.storedForAnswer, request: StoredAnswer.Request(head: head), age: 0, cacheStatus: .hit(ttl: 86_400))
                try check(answer?.status == plan.status && answer?.body == plan.body, "planned \(String(describing: answer))")
                blackHole(answer)
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark(inHitOrder("Head serialised: status line and a planned 200's headers")) { benchmark in
        let entry = try await storedEntry()
        let head = requestHead(assetURL(0))
        guard
            let answer = StoredAnswer.plan(
                entry.storedForAnswer, request: StoredAnswer.Request(head: head), age: 0, cacheStatus: .hit(ttl: 86_400))
        else {
            throw WrongResult(description: "no answer planned")
        }
        let allocator = ByteBufferAllocator()
        func serialised() -> ByteBuffer {
            var bytes = allocator.buffer(capacity: 512)
            bytes.writeStaticString("HTTP/1.1 200 OK\r\n")
            BenchmarkHitPath.writeHeaderLines(answer.headers, to: &bytes)
            bytes.writeStaticString("\r\n")
            return bytes
        }
        let expected = String(buffer: serialised())
        try check(
            expected.hasPrefix("HTTP/1.1 200 OK\r\n") && expected.contains("\r\nCache-Status: larder; hit; ttl=86400\r\n")
                && expected.hasSuffix("\r\n\r\n"),
            "serialised \(expected)")
        let expectedCount = expected.utf8.count
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let bytes = serialised()
            try check(bytes.readableBytes == expectedCount, "serialised \(String(buffer: bytes))")
            blackHole(bytes)
        }
        benchmark.stopMeasurement()
    }
}

/// Stored entry 0 of the 100-entry store (1 KiB, `max-age=86400`, an `ETag`).
private func storedEntry() async throws -> CachedEntry {
    let store = try await Stores.shared.store(entries: 100)
    let key = try CacheKey(url: assetURL(0))
    guard let entry = try await store.entry(for: key) else {
        throw WrongResult(description: "no entry for \(key)")
    }
    return entry
}
