import Foundation
import GRDB
import LarderHTTP

/// A body a keyed answer was asked with (``Store/keepRequestBody(_:contentType:for:within:at:)``).
public struct KeptRequestBody: Sendable, Hashable {
    /// The keyed key the answer is stored under.
    public var key: CacheKey
    /// The request's `Content-Type`.
    public var contentType: String?
    /// The body.
    public var body: [UInt8]
}

extension Store {
    /// The most bodies kept for one read (one method and URL): the newest.
    public static let maximumRequestBodiesPerRead = 32

    /// Keeps the body the answer stored under `key` was asked with, for comparing later requests'
    /// bodies with (docs/FORMATS.md, "keyed_request_body"). `read` is the range of keys of the same
    /// method and URL (``CacheKey/keyedRange(method:bodyKey:)``); beyond
    /// ``maximumRequestBodiesPerRead`` in it, the oldest go. Forgotten with the last entry under
    /// `key` (a trigger).
    public func keepRequestBody(
        _ body: [UInt8], contentType: String?, for key: CacheKey, within read: Range<String>, at date: Date
    ) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO keyed_request_body (key, content_type, body, stored_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, body = excluded.body,
                        stored_at = excluded.stored_at
                    """,
                arguments: [key.rawValue, contentType, Data(body), date.timeIntervalSince1970])
            try db.execute(
                sql: """
                    DELETE FROM keyed_request_body WHERE key >= ?1 AND key < ?2 AND key NOT IN (
                        SELECT key FROM keyed_request_body WHERE key >= ?1 AND key < ?2 ORDER BY stored_at DESC LIMIT ?3)
                    """,
                arguments: [read.lowerBound, read.upperBound, Self.maximumRequestBodiesPerRead])
        }
    }

    /// The bodies kept for the keys in `read`, the newest first.
    public func requestBodies(within read: Range<String>) async throws -> [KeptRequestBody] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT key, content_type, body FROM keyed_request_body WHERE key >= ? AND key < ?
                    ORDER BY stored_at DESC LIMIT ?
                    """,
                arguments: [read.lowerBound, read.upperBound, Self.maximumRequestBodiesPerRead]
            ).map { row in
                let body: Data = row[2]
                return KeptRequestBody(key: CacheKey(storedRawValue: row[0]), contentType: row[1], body: Array(body))
            }
        }
    }
}
