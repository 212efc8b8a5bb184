// swift-tools-version: 6.1
// Micro benchmarks of Larder's hot paths with package-benchmark (issues 7 and 18): every piece of
// work a cache hit runs, with its wall time and mallocs per operation (the malloc interposer):
// parsing the request target, classifying the request, its cache key; the store's lookups (from
// memory, from the index, at 100 and 100,000 entries); freshness, `Cache-Status`, the stored
// answer's plan (200, 304, 206) and its serialised head; and one whole immediate hit, a request
// head in and the answer's bytes out. Benchmarks/LarderMicro/LarderMicro.swift says what each
// measures; the proxy's internals are reached through `@_spi(Benchmarks)` declarations.
//
//   cd Benchmarks && swift package benchmark            # all benchmarks
//   swift package benchmark --filter '.*CacheKey.*'     # some (a regex matching whole names)
//
// It depends on the Larder package one folder up (the working tree); set LARDER_PACKAGE_PATH to
// measure another checkout (e.g. a clean export made by `Benchmarks/run --commit REV`), one that
// has those declarations (issue 18 on).
// The macro benchmarks against the peers are `Benchmarks/run`.
import Foundation
import PackageDescription

let larderPath = ProcessInfo.processInfo.environment["LARDER_PACKAGE_PATH"] ?? ".."
// A package reached by path is named by its folder's name.
let larderIdentity = URL(fileURLWithPath: larderPath, relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "LarderBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: larderPath),
        // The version Larder resolves; the benchmarks build request heads.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "LarderMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LarderHTTP", package: larderIdentity),
                .product(name: "LarderStore", package: larderIdentity),
                .product(name: "LarderProxy", package: larderIdentity),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/LarderMicro",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ]
)
