import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

@Suite("Store: entries by key base")
struct KeyBaseTests {
    @Test("entries under one origin and path, whatever their query or variant, newest first, cut at the limit")
    func siblings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keybase-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        defer { try? store.close() }
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let keys = [
            "http://h/api/settings?1", "http://h/api/settings", "http://h/api/settings?2#vary=x", "http://h/api/settings/more?3",
            "http://h/api/settingsX?4", "http://h/api?5",
        ]
        for (offset, key) in keys.enumerated() {
            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: Array(key.utf8))
            let time = base.addingTimeInterval(Double(offset))
            let head = StoredResponseHead(url: key, status: 200, headers: [], requestTime: time, responseTime: time)
            _ = try await writer.commit(key: CacheKey(storedRawValue: key), head: head, kind: .runtime, expectedLength: nil)
        }
        let found = try await store.entries(withBase: "http://h/api/settings", limit: 10).map(\.key.rawValue)
        #expect(found == ["http://h/api/settings?2#vary=x", "http://h/api/settings", "http://h/api/settings?1"])
        #expect(try await store.entries(withBase: "http://h/api/settings", limit: 2).count == 2)
        #expect(try await store.entries(withBase: "http://h/nothing", limit: 10).isEmpty)
    }
}
