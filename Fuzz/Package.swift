// swift-tools-version: 6.1
// libFuzzer targets for Larder's parsers, kept out of the main package so that its builds are
// unaffected. Build and run them with `scripts/fuzz` (see there for the flags).
import PackageDescription

let fuzzTargets: [(name: String, dependencies: [String])] = [
    ("FuzzCacheKey", ["LarderHTTP"]),
    ("FuzzGamesList", ["LarderPrecache", "LarderHTTP"]),
    ("FuzzManifest", ["LarderPrecache", "LarderHTTP"]),
    ("FuzzConfigFile", ["LarderConfig", "LarderHTTP"]),
    ("FuzzCacheControl", ["LarderHTTP"]),
    ("FuzzRange", ["LarderHTTP"]),
    ("FuzzHTTPDate", ["LarderHTTP"]),
    ("FuzzPageSubresources", ["LarderHTTP"]),
]

let package = Package(
    name: "LarderFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that products are found whatever the checkout's folder is called.
        .package(name: "Larder", path: "..")
    ],
    targets: [
        // Starts libFuzzer from the targets' own `main` (SwiftPM names an executable's entry point
        // `<Target>_main`, so libFuzzer's `main` cannot be used).
        .target(name: "FuzzerDriver")
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzerDriver"] + target.dependencies.map { .product(name: $0, package: "Larder") }
            )
        }
)
