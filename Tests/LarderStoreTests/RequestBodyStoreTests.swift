import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

@Suite("Store: the bodies keyed reads were asked with, kept for stand-ins")
struct RequestBodyStoreTests {
    @Test("the newest first, at most 32 per read, other reads apart; forgotten with the last entry (or variant) under the key")
    func keptBoundedAndForgotten() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let url = try CacheKey(url: "https://app.example/api/metrics")
            let read = url.keyedRange(method: "POST", bodyKey: .exact)
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            for index in 0..<40 {
                let key = url.keyed(method: "POST", bodyKey: .exact, digest: String(format: "%02d", index))
                try await store.keepRequestBody(
                    Array("{\"n\":\(index)}".utf8), contentType: "application/json", for: key, within: read,
                    at: start.addingTimeInterval(Double(index)))
            }
            let other = try CacheKey(url: "https://app.example/api/other")
            try await store.keepRequestBody(
                Array("x".utf8), contentType: nil, for: other.keyed(method: "POST", bodyKey: .exact, digest: "00"),
                within: other.keyedRange(method: "POST", bodyKey: .exact), at: start)

            let kept = try await store.requestBodies(within: read)
            #expect(kept.count == Store.maximumRequestBodiesPerRead)
            #expect(kept.first?.body == Array("{\"n\":39}".utf8))
            #expect(kept.last?.body == Array("{\"n\":8}".utf8))
            #expect(kept.first?.contentType == "application/json")
            #expect(try await store.requestBodies(within: other.keyedRange(method: "POST", bodyKey: .exact)).count == 1)

            // An answer stored under one key, and a variant under another: each body goes with the last of its entries.
            let plainKey = url.keyed(method: "POST", bodyKey: .exact, digest: "39")
            let variedKey = url.keyed(method: "POST", bodyKey: .exact, digest: "38")
            _ = try await store.put(sampleBody(count: 10, seed: 1), at: plainKey.rawValue, key: plainKey)
            _ = try await store.put(sampleBody(count: 10, seed: 2), at: variedKey.rawValue, key: variedKey.variant("aa"))
            _ = try await store.put(sampleBody(count: 10, seed: 3), at: variedKey.rawValue, key: variedKey.variant("bb"))
            try await store.removeEntry(for: plainKey)
            #expect(try await store.requestBodies(within: read).map(\.key).contains(plainKey) == false)
            try await store.removeEntry(for: variedKey.variant("aa"))
            #expect(try await store.requestBodies(within: read).map(\.key).contains(variedKey), "a variant is left")
            try await store.removeEntry(for: variedKey.variant("bb"))
            #expect(try await store.requestBodies(within: read).map(\.key).contains(variedKey) == false)
            #expect(try await store.requestBodies(within: read).count == Store.maximumRequestBodiesPerRead - 2)
        }
    }
}
