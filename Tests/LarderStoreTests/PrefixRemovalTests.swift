import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// Removing one origin's runtime entries that the caller's rule picks
/// (``Store/removeRuntimeEntries(withPrefix:where:)``, for **Stop keeping** a site's no-store pages).
struct PrefixRemovalTests {
    @Test
    func removesTheRuntimeEntriesUnderThePrefixThatTheRulePicksAndNothingElse() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let root = try await store.put(sampleBody(count: 100, seed: 1), at: "https://admin.example/")
            let variant = try await store.put(
                sampleBody(count: 100, seed: 2), at: "https://admin.example/users",
                key: try CacheKey(url: "https://admin.example/users").variant("00000000000000aa"))
            let spared = try await store.put(sampleBody(count: 100, seed: 3), at: "https://admin.example/spared")
            let precached = try await store.put(sampleBody(count: 100, seed: 4), at: "https://admin.example/app.js", kind: .precached)
            let otherHost = try await store.put(sampleBody(count: 100, seed: 5), at: "https://admin.example.evil/x")
            let otherPort = try await store.put(sampleBody(count: 100, seed: 6), at: "https://admin.example:8443/y")

            let removed = try await store.removeRuntimeEntries(withPrefix: "https://admin.example/") { entry in
                !entry.url.hasSuffix("/spared")
            }
            #expect(removed == 2)
            #expect(try await store.entry(for: root.key) == nil, "the origin's root page is under the prefix too")
            #expect(try await store.variants(of: try CacheKey(url: "https://admin.example/users")).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: variant.bodyPath))
            for kept in [spared, precached, otherHost, otherPort] {
                #expect(try await store.entry(for: kept.key) != nil, "\(kept.key)")
            }
        }
    }

    @Test
    func walksMoreThanOneBatch() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let count = Store.keysPerQuery + 20
            for index in 0..<count {
                try await store.put(sampleBody(count: 10, seed: UInt8(index % 200)), at: "https://admin.example/p\(index)")
            }
            #expect(try await store.removeRuntimeEntries(withPrefix: "https://admin.example/") { _ in true } == count)
            #expect(try await store.totals().entries == 0)
        }
    }
}
