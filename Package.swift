// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Larder",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "larder", targets: ["larder"]),
        .executable(name: "larder-demo-origin", targets: ["larder-demo-origin"]),
        .library(name: "LarderHTTP", targets: ["LarderHTTP"]),
        .library(name: "LarderConfig", targets: ["LarderConfig"]),
        // The proxy, and Larder inside an app (LarderEmbedded: configure, start, status, precache, stop).
        .library(name: "LarderProxy", targets: ["LarderProxy", "LarderIntrospection", "LarderDevOffline", "LarderEmbedded"]),
        .library(name: "LarderStore", targets: ["LarderStore"]),
        .library(name: "LarderUpstream", targets: ["LarderUpstream"]),
        // The libcurl client; empty without the `Curl` trait.
        .library(name: "LarderCurl", targets: ["LarderCurl"]),
        // The SwiftNIO client.
        .library(name: "LarderNIOUpstream", targets: ["LarderNIOUpstream"]),
        .library(name: "LarderPrecache", targets: ["LarderPrecache"]),
        .library(name: "LarderPack", targets: ["LarderPack"]),
    ],
    // `Curl` (on by default) links libcurl and makes it the default upstream client; without it
    // (`swift build --disable-default-traits`: iOS, Android, anywhere without libcurl) every
    // product builds on the SwiftNIO client alone (docs/EMBEDDING.md, Building without libcurl).
    traits: [
        .default(enabledTraits: ["Curl"]),
        .trait(name: "Curl", description: "Link libcurl and fetch with it by default (CurlUpstream, LarderCurl)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // libcurl, with a header shim for its variadic setters.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // zlib, with a header shim for its inflateInit2 macro.
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // sync_file_range (Linux), which Swift's Glibc module does not declare.
        .systemLibrary(name: "CFileSync"),
        // The rules of HTTP caching as pure values: no NIO, no I/O. Every other module builds on it.
        .target(name: "LarderHTTP", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "LarderStore",
            dependencies: [
                "LarderHTTP",
                "CFileSync",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "LarderUpstream",
            dependencies: [
                "LarderHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The SwiftNIO client (NIOUpstream, on AsyncHTTPClient): in every build, the only one
        // without the `Curl` trait.
        .target(
            name: "LarderNIOUpstream",
            dependencies: [
                "LarderHTTP",
                "LarderUpstream",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The libcurl client (CurlUpstream), behind the `Curl` trait: its sources compile to nothing
        // without it, so that no libcurl header or library is needed.
        .target(
            name: "LarderCurl",
            dependencies: [
                "LarderHTTP",
                "LarderUpstream",
                .target(name: "CCurl", condition: .when(traits: ["Curl"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The config file, read apart from the proxy: it knows the rules' types and nothing else.
        .target(name: "LarderConfig", dependencies: ["LarderHTTP"]),
        .target(
            name: "LarderPrecache",
            dependencies: [
                "LarderHTTP",
                "LarderIntrospection",
                "LarderStore",
                "LarderUpstream",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Portable packs: a games list's precached set as one tar, written and read (docs/FORMATS.md, Packs).
        .target(
            name: "LarderPack",
            dependencies: ["LarderHTTP", "LarderStore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Declared requests run once and stored (docs/SERVING.md, Declared requests): used by the
        // proxy's scheduler and by `larder precache`, neither importing the other.
        .target(
            name: "LarderDeclaredRequests",
            dependencies: [
                "LarderHTTP",
                "LarderStore",
                "LarderUpstream",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What a running proxy shows of itself to the pages about it, and the actions they take
        // (`ProxyIntrospection`), with the values they read and the own-page request and response:
        // LarderProxy conforms, LarderDevOffline reads it, neither importing the other.
        .target(name: "LarderIntrospection", dependencies: ["LarderHTTP"]),
        .target(
            name: "LarderProxy",
            dependencies: [
                "LarderIntrospection",
                "LarderDeclaredRequests",
                "CZlib",
                "LarderHTTP",
                "LarderStore",
                "LarderUpstream",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // /dev/offline, its JSON report and controls, and /metrics: the pages the proxy routes to
        // through `OwnPageResponder`, reading it through `ProxyIntrospection` (no proxy linked);
        // `HumanFormat` and `OfflineReport` for the CLI too.
        .target(
            name: "LarderDevOffline",
            dependencies: [
                "LarderHTTP",
                "LarderStore",
                "LarderUpstream",
                "LarderIntrospection",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Larder as a library: the proxy, its store, upstream client and precache jobs assembled and run.
        // Which upstream client a Larder fetches with (libcurl's or SwiftNIO's, or an app's own):
        // apart from LarderEmbedded, so that `larder status` reaches a running proxy without
        // linking one.
        .target(
            name: "LarderUpstreamClient",
            dependencies: [
                "LarderNIOUpstream",
                .target(name: "LarderCurl", condition: .when(traits: ["Curl"])),
                "LarderUpstream",
                "LarderPrecache",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "LarderEmbedded",
            dependencies: [
                "LarderUpstreamClient",
                "LarderNIOUpstream",
                .target(name: "LarderCurl", condition: .when(traits: ["Curl"])),
                "LarderHTTP",
                "LarderStore",
                "LarderUpstream",
                "LarderPrecache",
                "LarderProxy",
                "LarderIntrospection",
                "LarderDevOffline",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "larder",
            dependencies: [
                .target(name: "LarderCurl", condition: .when(traits: ["Curl"])),
                "LarderHTTP",
                "LarderConfig",
                "LarderStore",
                "LarderProxy",
                "LarderDevOffline",
                "LarderPrecache",
                "LarderPack",
                "LarderUpstream",
                "LarderDeclaredRequests",
                "LarderEmbedded",
                "LarderUpstreamClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // An HTTP(S) origin with fault injection, used by the tests and the demo.
        .target(
            name: "LarderTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "larder-demo-origin",
            dependencies: [
                "LarderTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // An app embedding Larder (docs/EMBEDDING.md); EndToEndTests run it.
        .executableTarget(
            name: "EmbeddedLarder",
            dependencies: ["LarderEmbedded", "LarderTestSupport"],
            path: "Examples/EmbeddedLarder"
        ),
        .testTarget(name: "LarderHTTPTests", dependencies: ["LarderHTTP"]),
        .testTarget(name: "LarderPackTests", dependencies: ["LarderPack", "LarderStore", "LarderHTTP"]),
        .testTarget(name: "LarderConfigTests", dependencies: ["LarderConfig", "LarderHTTP"]),
        .testTarget(
            name: "LarderStoreTests",
            dependencies: [
                "LarderStore",
                "LarderHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LarderPrecacheTests",
            dependencies: [
                .target(name: "LarderCurl", condition: .when(traits: ["Curl"])),
                "LarderPrecache",
                "LarderUpstream",
                "LarderHTTP",
                "LarderStore",
                "LarderTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LarderUpstreamTests",
            dependencies: [
                "LarderNIOUpstream",
                .target(name: "LarderCurl", condition: .when(traits: ["Curl"])),
                "LarderUpstream",
                "LarderHTTP",
                "LarderTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LarderProxyTests",
            dependencies: [
                "LarderProxy",
                "LarderIntrospection",
                "LarderDeclaredRequests",
                "LarderHTTP",
                "LarderStore",
                "LarderUpstream",
                "LarderTestSupport",
                "CZlib",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LarderDevOfflineTests",
            dependencies: [
                "LarderDevOffline", "LarderIntrospection", "LarderProxy", "LarderHTTP", "LarderStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LarderEmbeddedTests",
            dependencies: [
                "LarderEmbedded", "LarderProxy", "LarderPrecache", "LarderStore", "LarderUpstream", "LarderTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "EndToEndTests", dependencies: ["LarderTestSupport", "LarderStore"]),
    ]
)
