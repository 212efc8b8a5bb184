import Foundation
import Testing

@testable import LarderStore

@Suite("Extra URLs added to precache")
struct ExtraURLsTests {
    @Test("added once per URL (a second add moves it to another game), listed first added first, removed")
    func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            try await store.addExtraURL(ExtraURLRecord(url: "https://api.example/a", gameSlug: "flip", addedAt: start))
            try await store.addExtraURL(ExtraURLRecord(url: "https://docs.example/b.js", gameSlug: nil, addedAt: start + 1))
            try await store.addExtraURL(ExtraURLRecord(url: "https://api.example/a", gameSlug: "word", addedAt: start + 2))
            let extras = try await store.extraURLs()
            #expect(extras.map(\.url) == ["https://docs.example/b.js", "https://api.example/a"])
            #expect(extras.map(\.gameSlug) == [nil, "word"])
            #expect(extras.last?.addedAt == start + 2)
            #expect(try await store.removeExtraURL("https://api.example/a"))
            #expect(try await store.removeExtraURL("https://api.example/a") == false)
            #expect(try await store.extraURLs().count == 1)
        }
    }
}
