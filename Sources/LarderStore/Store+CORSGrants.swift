import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// The most grants kept; the least recently given go first beyond it.
    public static let maximumCORSGrants = 10_000

    /// Records that the origin last gave the page origin `page` this grant for `target` (the proxy
    /// names a resource there, `METHOD URL`: docs/FORMATS.md, "cors_grant").
    public func recordCORSGrant(_ grant: CORSGrant, target: String, page: String, at date: Date) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO cors_grant (target, page, allow_origin, allow_credentials, exposed_headers, updated)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (target, page) DO UPDATE SET allow_origin = excluded.allow_origin,
                        allow_credentials = excluded.allow_credentials, exposed_headers = excluded.exposed_headers,
                        updated = excluded.updated
                    """,
                arguments: [
                    target, page, grant.allowOrigin, grant.allowsCredentials, grant.exposedHeaders.joined(separator: ","),
                    date.timeIntervalSince1970,
                ])
            // Bounded: beyond the limit the least recently given grants go (a new pair of origins is rare).
            try db.execute(
                sql: """
                    DELETE FROM cors_grant WHERE updated < (SELECT updated FROM cors_grant ORDER BY updated DESC LIMIT 1 OFFSET ?)
                    """,
                arguments: [Self.maximumCORSGrants - 1])
        }
    }

    /// Forgets the grant for `target` and `page`, if one is kept.
    public func removeCORSGrant(target: String, page: String) async throws {
        try await self.pool.write { db in
            try db.execute(sql: "DELETE FROM cors_grant WHERE target = ? AND page = ?", arguments: [target, page])
        }
    }

    /// The grant last given to the page origin `page` for `target`, if one is kept.
    public func corsGrant(target: String, page: String) async throws -> CORSGrant? {
        try await self.pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT allow_origin, allow_credentials, exposed_headers FROM cors_grant WHERE target = ? AND page = ?",
                    arguments: [target, page])
            else { return nil }
            let exposed: String = row[2]
            return CORSGrant(
                allowOrigin: row[0], allowsCredentials: row[1], exposedHeaders: exposed.split(separator: ",").map(String.init))
        }
    }
}
