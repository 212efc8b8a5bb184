import Foundation
import LarderHTTP
import LarderStore

/// Runs `body` with a new empty directory that is deleted afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("larder-store-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Every regular file under `directory`, as paths relative to it, sorted.
func regularFiles(under directory: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
        return []
    }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "\(directory)/\(relative)", isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            files.append(relative)
        }
    }
    return files.sorted()
}

/// `count` bytes of a repeatable pattern that differs per `seed`.
func sampleBody(count: Int, seed: UInt8) -> [UInt8] {
    var state = UInt32(seed) &* 2_654_435_761 &+ 1
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

/// A response head with fixed times.
func sampleHead(url: String, headers: [HeaderField] = [HeaderField(name: "Content-Type", value: "text/plain")])
    -> StoredResponseHead
{
    StoredResponseHead(
        url: url,
        status: 200,
        headers: headers,
        requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
        responseTime: Date(timeIntervalSince1970: 1_700_000_000.5)
    )
}

extension Store {
    /// Writes `body` in chunks and commits it under `url`'s key with its own length as the expected length.
    @discardableResult
    func put(
        _ body: [UInt8],
        at url: String,
        kind: EntryKind = .runtime,
        head: StoredResponseHead? = nil,
        revision: String? = nil,
        key: CacheKey? = nil
    ) async throws -> CachedEntry {
        let writer = try self.makeBodyWriter()
        var offset = 0
        while offset < body.count {
            let end = min(offset + 4096, body.count)
            try writer.write(contentsOf: Array(body[offset..<end]))
            offset = end
        }
        return try await writer.commit(
            key: try key ?? CacheKey(url: url),
            head: head ?? sampleHead(url: url),
            kind: kind,
            expectedLength: Int64(body.count),
            revision: revision
        )
    }

    /// The stored body bytes for `url`, or nil when the store does not serve it.
    func body(at url: String) async throws -> [UInt8]? {
        guard let entry = try await self.entry(for: try CacheKey(url: url)) else {
            return nil
        }
        return FileManager.default.contents(atPath: entry.bodyPath).map { [UInt8]($0) }
    }
}

/// The key of `url`, which the tests write correctly.
func cacheKey(_ url: String) throws -> CacheKey {
    try CacheKey(url: url)
}
