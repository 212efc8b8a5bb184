import Foundation
import LarderHTTP
import Testing

@testable import LarderStore

/// The cache directory is private to its user (docs/SERVING.md, "What is private and where it is kept").
@Suite("Store: private directory")
struct PrivateDirectoryTests {
    @Test("a new cache directory and its folders are 0700 and its files 0600, whatever the umask lets through")
    func newDirectoryIsPrivate() async throws {
        try await withTemporaryDirectory { parent in
            let directory = parent + "/new/cache"
            let previous = umask(0o022)
            defer { umask(previous) }
            let store = try Store(directory: directory)
            defer { try? store.close() }
            let writer = try store.makeBodyWriter()
            try writer.write(contentsOf: Array("hello".utf8))
            _ = try await writer.commit(
                key: CacheKey(storedRawValue: "https://example.com/a"),
                head: StoredResponseHead(url: "https://example.com/a", status: 200, headers: [], requestTime: Date(), responseTime: Date()),
                kind: .runtime, expectedLength: 5)

            var checked = 0
            for relative in [""] + (FileManager.default.subpaths(atPath: directory) ?? []) {
                let path = relative.isEmpty ? directory : directory + "/" + relative
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(mode == (isFolder.boolValue ? 0o700 : 0o600), "\(relative) has mode \(String(mode ?? 0, radix: 8))")
                checked += 1
            }
            #expect(FileManager.default.fileExists(atPath: directory + "/index.sqlite-wal"))
            #expect(checked > 256)
        }
    }

    @Test("an existing directory keeps its mode; a looser one than 0700 is reported with its mode")
    func existingDirectoryKeepsItsMode() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
            #expect(PrivateDirectory.looseMode(of: directory) == 0o755)
            #expect(PrivateDirectory.warning(path: directory, mode: 0o755).contains("chmod 700 \(directory)"))
            let store = try Store(directory: directory)
            try store.close()
            #expect(try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int == 0o755)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
            #expect(PrivateDirectory.looseMode(of: directory) == nil)
        }
    }
}
