import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

@Suite("CORS grants kept in the index")
struct CORSGrantStoreTests {
    @Test("a grant is kept per origin and page origin, replaced by the next, and survives reopening")
    func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let first = CORSGrant(allowOrigin: "https://www.example", allowsCredentials: true, exposedHeaders: ["x-request-id"])
            let second = CORSGrant(allowOrigin: "*", allowsCredentials: false, exposedHeaders: [])
            do {
                let store = try Store(directory: directory)
                defer { try? store.close() }
                #expect(try await store.corsGrant(target: "https://api.example", page: "https://www.example") == nil)
                try await store.recordCORSGrant(first, target: "https://api.example", page: "https://www.example", at: start)
                try await store.recordCORSGrant(second, target: "https://api.example", page: "https://other.example", at: start)
                #expect(try await store.corsGrant(target: "https://api.example", page: "https://www.example") == first)
                #expect(try await store.corsGrant(target: "https://cdn.example", page: "https://www.example") == nil)
                try await store.recordCORSGrant(second, target: "https://api.example", page: "https://www.example", at: start + 1)
            }
            let reopened = try Store(directory: directory)
            defer { try? reopened.close() }
            #expect(try await reopened.corsGrant(target: "https://api.example", page: "https://www.example") == second)
            #expect(try await reopened.corsGrant(target: "https://api.example", page: "https://other.example") == second)
        }
    }
}
