import Foundation
import LarderHTTP
import LarderStore

/// Runs `body` with a new empty directory that is deleted afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-pack-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Runs `body` with a descriptor open for writing on a new file at `path`, closed afterwards.
func withFileForWriting<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(descriptor >= 0, "cannot create \(path)")
    defer { close(descriptor) }
    return try body(descriptor)
}

/// Runs `body` with a descriptor open for reading `path`, closed afterwards.
func withFileForReading<T>(_ path: String, _ body: (Int32) async throws -> T) async throws -> T {
    let descriptor = open(path, O_RDONLY)
    precondition(descriptor >= 0, "cannot open \(path)")
    defer { close(descriptor) }
    return try await body(descriptor)
}

/// `count` bytes of a repeatable pattern that differs per `seed`.
func sampleBody(count: Int, seed: UInt8) -> [UInt8] {
    var state = UInt32(seed) &* 2_654_435_761 &+ 1
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

/// HTTP date text for `seconds` since 1970.
func httpDate(_ seconds: TimeInterval) -> String {
    HTTPDate.format(Date(timeIntervalSince1970: seconds))
}

extension Store {
    /// Stores `body` at `url` as an origin answered it at `date` (seconds since 1970), precached.
    @discardableResult
    func put(_ body: [UInt8], at url: String, date: TimeInterval, extraHeaders: [HeaderField] = []) async throws -> CachedEntry {
        let writer = try self.makeBodyWriter()
        try writer.write(contentsOf: body)
        let head = StoredResponseHead(
            url: url, status: 200,
            headers: [HeaderField(name: "Date", value: httpDate(date)), HeaderField(name: "Content-Type", value: "text/javascript")]
                + extraHeaders,
            requestTime: Date(timeIntervalSince1970: date), responseTime: Date(timeIntervalSince1970: date))
        return try await writer.commit(key: try CacheKey(url: url), head: head, kind: .precached, expectedLength: Int64(body.count))
    }

    /// Records `slug` at `root` as a complete game of `urls`, precached at `lastRun`.
    func recordGame(_ slug: String, root: String, urls: [String], lastRun: TimeInterval) async throws {
        let files = try urls.map { GameFileRecord(key: try CacheKey(url: $0), url: $0, state: .cached) }
        let record = GameRecord(
            slug: slug, root: root, manifestURL: root + "/offline.meta.json", displayName: slug.capitalized, state: .ready,
            filesListed: files.count, filesCached: files.count, bytes: 0, lastRun: Date(timeIntervalSince1970: lastRun), lastError: nil,
            manifestRevision: nil, listOrder: 0)
        _ = try await self.saveGameVersion(record, files: files, installing: [])
    }

    /// The bytes stored at `url`, or nil.
    func body(at url: String) async throws -> [UInt8]? {
        guard let entry = try await self.entry(for: try CacheKey(url: url)) else { return nil }
        return Array(try Data(contentsOf: URL(fileURLWithPath: entry.bodyPath)))
    }
}
