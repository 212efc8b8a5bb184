// swift-tools-version: 6.1
// Micro benchmarks of Larder's hot paths with package-benchmark (issue 7): cache-key
// normalisation and index lookups, with allocation counts.
//
//   cd Benchmarks && swift package benchmark            # all benchmarks
//   swift package benchmark --filter 'CacheKey.*'       # some
//
// It depends on the Larder package one folder up (the working tree); set LARDER_PACKAGE_PATH to
// measure another checkout (e.g. a clean export made by `Benchmarks/run --commit REV`).
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
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "LarderMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LarderStore", package: larderIdentity),
            ],
            path: "Benchmarks/LarderMicro",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ]
)
