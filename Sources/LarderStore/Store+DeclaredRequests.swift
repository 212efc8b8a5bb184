import Foundation
import GRDB

extension Store {
    /// Saves `record`, replacing the record of the same name.
    public func saveDeclaredRequest(_ record: DeclaredRequestRecord) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO declared_request (name, method, url, key, last_attempt, last_success, last_status, last_error,
                        consecutive_failures, next_run, body_size)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET method = excluded.method, url = excluded.url, key = excluded.key,
                        last_attempt = excluded.last_attempt, last_success = excluded.last_success, last_status = excluded.last_status,
                        last_error = excluded.last_error, consecutive_failures = excluded.consecutive_failures,
                        next_run = excluded.next_run, body_size = excluded.body_size
                    """,
                arguments: [
                    record.name, record.method, record.url, record.key, record.lastAttempt?.timeIntervalSince1970,
                    record.lastSuccess?.timeIntervalSince1970, record.lastStatus, record.lastError, record.consecutiveFailures,
                    record.nextRun?.timeIntervalSince1970, record.bodySize,
                ]
            )
        }
    }

    /// Every declared request's record, by name.
    public func declaredRequests() async throws -> [DeclaredRequestRecord] {
        try await self.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM declared_request ORDER BY name").map { row in
                DeclaredRequestRecord(
                    name: try row.decode(forColumn: "name"),
                    method: try row.decode(forColumn: "method"),
                    url: try row.decode(forColumn: "url"),
                    key: try row.decode(forColumn: "key"),
                    lastAttempt: Self.date(try row.decode(forColumn: "last_attempt")),
                    lastSuccess: Self.date(try row.decode(forColumn: "last_success")),
                    lastStatus: try row.decode(forColumn: "last_status"),
                    lastError: try row.decode(forColumn: "last_error"),
                    consecutiveFailures: try row.decode(forColumn: "consecutive_failures"),
                    nextRun: Self.date(try row.decode(forColumn: "next_run")),
                    bodySize: try row.decode(forColumn: "body_size")
                )
            }
        }
    }

    /// Keeps `body` (a template, as JSON text) as what the app itself sends for the declared
    /// request `name`, learned at `date` from `source` (the page that sent it).
    public func saveLearnedBody(_ body: String, name: String, at date: Date, from source: String) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO declared_request_learned (name, body, learned_at, learned_from) VALUES (?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET body = excluded.body, learned_at = excluded.learned_at,
                        learned_from = excluded.learned_from
                    """,
                arguments: [name, body, date.timeIntervalSince1970, source])
        }
    }

    /// The bodies learned from the app, by declared request name.
    public func learnedBodies() async throws -> [String: LearnedBodyRecord] {
        try await self.pool.read { db in
            var learned: [String: LearnedBodyRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, body, learned_at, learned_from FROM declared_request_learned") {
                let name: String = row[0]
                learned[name] = LearnedBodyRecord(body: row[1], learnedAt: Date(timeIntervalSince1970: row[2]), source: row[3])
            }
            return learned
        }
    }

    /// Forgets the records of requests the config no longer declares (their stored answers stay
    /// until purged).
    public func keepDeclaredRequests(named names: Set<String>) async throws {
        let known = try await self.declaredRequests().map(\.name)
        let gone = known.filter { !names.contains($0) }
        guard !gone.isEmpty else { return }
        try await self.pool.write { db in
            for name in gone {
                try db.execute(sql: "DELETE FROM declared_request WHERE name = ?", arguments: [name])
                try db.execute(sql: "DELETE FROM declared_request_learned WHERE name = ?", arguments: [name])
            }
        }
    }

    private static func date(_ seconds: Double?) -> Date? {
        seconds.map(Date.init(timeIntervalSince1970:))
    }
}
