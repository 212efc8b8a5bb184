import Crypto
import Foundation
import LarderStore
import Testing

/// The 256 body folders: made when a store opens, and made again if one goes missing.
struct BodyFolderTests {
    @Test("a new store has all 256 body folders; a folder removed behind its back is made again on the next write")
    func foldersExistAndComeBack() async throws {
        try await withTemporaryDirectory { directory in
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let folders = try FileManager.default.contentsOfDirectory(atPath: directory + "/bodies")
            #expect(folders.count == 256)
            #expect(folders.contains("00") && folders.contains("9f") && folders.contains("ff"))

            let body = sampleBody(count: 5_000, seed: 7)
            let hash = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
            try FileManager.default.removeItem(atPath: "\(directory)/bodies/\(hash.prefix(2))")
            let entry = try await store.put(body, at: "http://site.example/folder.bin")
            #expect(entry.bodyHash == hash)
            #expect(try await store.body(at: "http://site.example/folder.bin") == body)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/tmp").isEmpty)
        }
    }
}
