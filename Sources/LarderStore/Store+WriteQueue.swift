import Foundation
import GRDB
import LarderHTTP

/// The offline write queue (docs/FORMATS.md, "Write queue"): a `queued_write` row per write and its
/// body in `queue/<id>.body`.
///
/// Crash safety: a body is written to `tmp/`, synced, renamed into `queue/` and the folder synced
/// inside the write transaction that inserts its row, so a committed row always has its whole
/// body, and a crash before the commit leaves at most a file without a row (removed at the next
/// start). Body files are deleted only after the transaction that removed their rows committed.
extension Store {
    /// `<directory>/queue`: the bodies of queued writes.
    var queueDirectory: String {
        self.directory + "/queue"
    }

    /// Where the body of the queued write `id` lives.
    func queuedBodyPath(id: Int64) -> String {
        "\(self.queueDirectory)/\(id).body"
    }

    /// Persists `write`: its body file synced, then its row, in one transaction with the supersede
    /// rule. A write with a supersede key removes the older pending, non-terminal writes with that
    /// key that no delivery holds (``beginDelivery(id:at:)``), whether it is terminal or not; a
    /// terminal write is never removed by it. Returns the stored write and the ids it superseded.
    ///
    /// Throws ``WriteQueueError/full(_:)``, keeping nothing and removing nothing, when the queue
    /// with this write (less those it supersedes) would pass `limits`; the check reads the
    /// counters, never the queue.
    public func enqueueWrite(_ write: NewQueuedWrite, limits: WriteQueueLimits = WriteQueueLimits()) async throws -> (
        write: QueuedWrite, superseded: [Int64]
    ) {
        // Locked while it lives, so the leftover pass never takes it for a crashed writer's file.
        let (temporaryPath, descriptor) = try POSIXFile.createLockedFile(in: self.temporaryDirectory, suffix: ".queued")
        defer { POSIXFile.closeDescriptor(descriptor) }
        do {
            try write.body.withUnsafeBytes { try POSIXFile.writeAll(descriptor, $0, path: temporaryPath) }
            try await POSIXFile.sync(descriptor, path: temporaryPath)
            if try POSIXFile.makeDirectory(self.queueDirectory) {
                try POSIXFile.syncDirectory(self.directory)
            }
            let headers = HeaderListCoding.encode(write.headers)
            let supersedeKey = write.supersedeKey.map { Data($0.utf8) }
            let (id, superseded) = try await self.pool.writeWithoutTransaction { db -> (Int64, [Int64]) in
                var installedPath: String?
                do {
                    try db.beginTransaction(.immediate)
                    let superseded = try Self.supersede(db, key: supersedeKey)
                    let kept = try Self.queueTotals(db)
                    if let exceeded = limits.exceeded(writes: kept.writes, bytes: kept.bytes, adding: Int64(write.body.count)) {
                        throw WriteQueueError.full(exceeded)
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO queued_write (origin, method, url, headers, body_size, supersede_key, terminal, owner, created_at, state)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            write.origin, write.method, write.url, headers, write.body.count, supersedeKey, write.terminal, write.owner,
                            write.createdAt.timeIntervalSince1970, QueuedWrite.State.pending.rawValue,
                        ]
                    )
                    let id = db.lastInsertedRowID
                    // Under the write lock: the leftover pass (which takes it too) never sees this file without its row.
                    let path = self.queuedBodyPath(id: id)
                    try POSIXFile.renameFile(temporaryPath, to: path)
                    installedPath = path
                    try POSIXFile.syncDirectory(self.queueDirectory)
                    try db.commit()
                    return (id, superseded)
                } catch {
                    if db.isInsideTransaction {
                        try? db.rollback()
                    }
                    if let installedPath {
                        // Renamed, but no row names it.
                        try? POSIXFile.removeFile(installedPath)
                    }
                    throw error
                }
            }
            self.removeQueuedBodies(superseded)
            // The date as it reads back from the index, so this value equals the stored one.
            let stored = QueuedWrite(
                id: id, origin: write.origin, method: write.method, url: write.url, headers: write.headers,
                bodySize: Int64(write.body.count), supersedeKey: write.supersedeKey, terminal: write.terminal, owner: write.owner,
                createdAt: Date(timeIntervalSince1970: write.createdAt.timeIntervalSince1970))
            return (stored, superseded)
        } catch {
            try? POSIXFile.removeFile(temporaryPath)
            throw error
        }
    }

    /// The supersede rule, inside the transaction that queues a write with `key`: removes the
    /// pending, non-terminal writes with that key no delivery holds, returning their ids.
    private static func supersede(_ db: Database, key: Data?) throws -> [Int64] {
        guard let key else { return [] }
        let condition = "supersede_key = ? AND state = ? AND terminal = 0 AND in_flight = 0"
        let arguments: StatementArguments = [key, QueuedWrite.State.pending.rawValue]
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM queued_write WHERE \(condition) ORDER BY id", arguments: arguments)
        try db.execute(sql: "DELETE FROM queued_write WHERE \(condition)", arguments: arguments)
        return ids
    }

    /// The writes and bytes the queue keeps, from the counters.
    private static func queueTotals(_ db: Database) throws -> (writes: Int, bytes: Int64) {
        let row = try Row.fetchOne(
            db, sql: "SELECT COALESCE(SUM(writes), 0) AS writes, COALESCE(SUM(bytes), 0) AS bytes FROM queued_write_totals")
        return (row?["writes"] ?? 0, row?["bytes"] ?? 0)
    }

    /// Every queued write, pending and dead-lettered, by id (the order of arrival).
    public func queuedWrites() async throws -> [QueuedWrite] {
        try await self.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM queued_write ORDER BY id").map(Self.queuedWrite)
        }
    }

    /// At most `limit` queued writes, pending and dead-lettered, by id from the first after
    /// `after` (nil: from the first): one page, read from the primary key, whatever the queue holds.
    public func queuedWrites(after: Int64?, limit: Int) async throws -> [QueuedWrite] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM queued_write WHERE id > ? ORDER BY id LIMIT ?", arguments: [after ?? 0, max(limit, 0)]
            ).map(Self.queuedWrite)
        }
    }

    /// How many writes, and their body bytes, the queue keeps per origin and state, from the
    /// counters (a row per origin and state with writes), by origin.
    public func queuedWriteTotals() async throws -> [QueuedWriteTotal] {
        try await self.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT origin, state, writes, bytes FROM queued_write_totals ORDER BY origin, state").compactMap {
                row in
                guard let state = QueuedWrite.State(rawValue: row["state"]) else { return nil }
                return QueuedWriteTotal(origin: row["origin"], state: state, writes: row["writes"], bytes: row["bytes"])
            }
        }
    }

    /// The queued write `id`, or nil.
    public func queuedWrite(id: Int64) async throws -> QueuedWrite? {
        try await self.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM queued_write WHERE id = ?", arguments: [id]).map(Self.queuedWrite)
        }
    }

    /// The pending write of `origin` to deliver next: the one that arrived first.
    public func nextPendingWrite(origin: String) async throws -> QueuedWrite? {
        try await self.pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT * FROM queued_write WHERE state = ? AND origin = ? ORDER BY id LIMIT 1",
                arguments: [QueuedWrite.State.pending.rawValue, origin]
            ).map(Self.queuedWrite)
        }
    }

    /// The origins with pending writes, sorted (from the counters).
    public func pendingWriteOrigins() async throws -> [String] {
        try await self.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT origin FROM queued_write_totals WHERE state = ? ORDER BY origin",
                arguments: [QueuedWrite.State.pending.rawValue]
            )
        }
    }

    /// The body of `write`, as it was queued. Throws ``WriteQueueError`` when the file is missing or
    /// of another size: a damaged body is never sent.
    public func writeBody(_ write: QueuedWrite) async throws -> [UInt8] {
        let path = self.queuedBodyPath(id: write.id)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WriteQueueError.bodyMissing(id: write.id, path: path)
        }
        guard data.count == write.bodySize else {
            throw WriteQueueError.bodyDamaged(id: write.id, path: path, expected: write.bodySize, actual: Int64(data.count))
        }
        return [UInt8](data)
    }

    /// Marks the write as being delivered (supersede rules leave it alone until
    /// ``recordFailedDelivery(id:error:)`` or ``completeWrite(id:)``), counting the attempt.
    @discardableResult
    public func beginDelivery(id: Int64, at date: Date) async throws -> Bool {
        // A claim: a write superseded, dropped or expired since it was read is not sent.
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE queued_write SET in_flight = 1, attempts = attempts + 1, last_attempt = ?
                    WHERE id = ? AND state = ? AND in_flight = 0
                    """,
                arguments: [date.timeIntervalSince1970, id, QueuedWrite.State.pending.rawValue]
            )
            return db.changesCount > 0
        }
    }

    /// Records a delivery that failed and will be retried: no longer in flight, and why.
    public func recordFailedDelivery(id: Int64, error: String) async throws {
        try await self.pool.write { db in
            try db.execute(sql: "UPDATE queued_write SET in_flight = 0, last_error = ? WHERE id = ?", arguments: [error, id])
        }
    }

    /// Removes a delivered write: its row, then its body file.
    public func completeWrite(id: Int64) async throws {
        _ = try await self.dropWrite(id: id)
    }

    /// Dead-letters the write: kept and shown, never retried automatically, and without its
    /// credentials (``forgetCredentials(_:ids:)``).
    public func deadLetterWrite(id: Int64, reason: String) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: "UPDATE queued_write SET state = ?, dead_reason = ?, in_flight = 0 WHERE id = ?",
                arguments: [QueuedWrite.State.deadLetter.rawValue, reason, id]
            )
            try Self.forgetCredentials(db, ids: [id])
        }
    }

    /// Removes the credential headers (``CredentialRedaction/isCredentialHeader(_:)``) of the
    /// writes `ids`, in the caller's transaction: credentials rest on disk only while a write is
    /// pending (docs/SERVING.md, "What is private and where it is kept"). A delivered or dropped
    /// write's row is deleted; a dead letter keeps its other headers, and is sent without the
    /// credentials if the user retries it.
    static func forgetCredentials(_ db: Database, ids: [Int64]) throws {
        for id in ids {
            guard let encoded = try String.fetchOne(db, sql: "SELECT headers FROM queued_write WHERE id = ?", arguments: [id]),
                let headers = HeaderListCoding.decode(encoded)
            else { continue }
            let kept = CredentialRedaction.removingCredentials(from: headers)
            guard kept.count < headers.count else { continue }
            try db.execute(sql: "UPDATE queued_write SET headers = ? WHERE id = ?", arguments: [HeaderListCoding.encode(kept), id])
        }
    }

    /// Makes a dead-lettered write pending again, keeping its attempts and place in the order;
    /// one that had expired gets a new retention period from now (its `createdAt`), so the next
    /// expiry does not take it back before it is tried. Returns false when there is no write `id`.
    public func retryWrite(id: Int64, now: Date = Date()) async throws -> Bool {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE queued_write SET state = :pending, dead_reason = NULL,
                        created_at = CASE WHEN dead_reason = :expired THEN :now ELSE created_at END
                    WHERE id = :id
                    """,
                arguments: [
                    "pending": QueuedWrite.State.pending.rawValue, "expired": Self.expiredReason, "now": now.timeIntervalSince1970,
                    "id": id,
                ]
            )
            return db.changesCount > 0
        }
    }

    /// How many writes are in each state (from the counters, for /metrics).
    public func queuedWriteCounts() async throws -> [QueuedWrite.State: Int] {
        try await self.pool.read { db in
            var counts: [QueuedWrite.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, SUM(writes) AS n FROM queued_write_totals GROUP BY state") {
                if let state = QueuedWrite.State(rawValue: row["state"]) {
                    counts[state] = row["n"]
                }
            }
            return counts
        }
    }

    /// Removes the write, row then body file, whatever its state. Returns false when there is no write `id`.
    public func dropWrite(id: Int64) async throws -> Bool {
        let removed = try await self.pool.write { db in
            try db.execute(sql: "DELETE FROM queued_write WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
        if removed {
            self.removeQueuedBodies([id])
        }
        return removed
    }

    /// Dead-letters the pending writes queued before `date` ("expired after retention"), except
    /// one being delivered. Returns how many.
    public func expireWrites(createdBefore date: Date) async throws -> Int {
        try await self.pool.write { db in
            let expiring = try Int64.fetchAll(
                db, sql: "SELECT id FROM queued_write WHERE state = ? AND in_flight = 0 AND created_at < ?",
                arguments: [QueuedWrite.State.pending.rawValue, date.timeIntervalSince1970])
            try db.execute(
                sql: "UPDATE queued_write SET state = ?, dead_reason = ? WHERE state = ? AND in_flight = 0 AND created_at < ?",
                arguments: [
                    QueuedWrite.State.deadLetter.rawValue, Self.expiredReason, QueuedWrite.State.pending.rawValue,
                    date.timeIntervalSince1970,
                ]
            )
            let expired = db.changesCount
            try Self.forgetCredentials(db, ids: expiring)
            return expired
        }
    }

    /// The dead-letter reason of an expired write.
    public static let expiredReason = "expired after retention"

    /// At start-up: clears the in-flight marks a crash left (such a write may or may not have
    /// reached its origin; its `Idempotency-Key` lets the origin tell), and settles the queue's files
    /// (``settleWriteQueue(remove:)``).
    public func resetInFlightWrites() async throws {
        try await self.pool.write { db in
            try db.execute(sql: "UPDATE queued_write SET in_flight = 0 WHERE in_flight = 1")
        }
        _ = try await self.settleWriteQueue(remove: true)
    }

    /// Deletes the body files of writes whose rows are gone; a failure leaves a file for the next
    /// start's leftover pass, and is only logged.
    private func removeQueuedBodies(_ ids: [Int64]) {
        for id in ids {
            do {
                try POSIXFile.removeFile(self.queuedBodyPath(id: id))
            } catch {
                self.logger.warning("Cannot delete a queued write's body file", metadata: ["id": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// The write a `queued_write` row describes.
    private static func queuedWrite(_ row: Row) throws -> QueuedWrite {
        let id: Int64 = try row.decode(forColumn: "id")
        let lastAttempt: Double? = try row.decode(forColumn: "last_attempt")
        let supersedeKey: Data? = try row.decode(forColumn: "supersede_key")
        // Only enqueueWrite writes these; a row that cannot be read is refused rather than replayed without its headers.
        guard let headers = HeaderListCoding.decode(try row.decode(forColumn: "headers")),
            let state = QueuedWrite.State(rawValue: try row.decode(forColumn: "state"))
        else {
            throw WriteQueueError.malformedRow(id: id)
        }
        return QueuedWrite(
            id: id,
            origin: try row.decode(forColumn: "origin"),
            method: try row.decode(forColumn: "method"),
            url: try row.decode(forColumn: "url"),
            headers: headers,
            bodySize: try row.decode(forColumn: "body_size"),
            supersedeKey: supersedeKey.map { String(decoding: $0, as: UTF8.self) },
            terminal: try row.decode(forColumn: "terminal"),
            owner: try row.decode(forColumn: "owner"),
            createdAt: Date(timeIntervalSince1970: try row.decode(forColumn: "created_at")),
            attempts: try row.decode(forColumn: "attempts"),
            lastAttempt: lastAttempt.map(Date.init(timeIntervalSince1970:)),
            lastError: try row.decode(forColumn: "last_error"),
            state: state,
            deadReason: try row.decode(forColumn: "dead_reason"),
            inFlight: try row.decode(forColumn: "in_flight")
        )
    }
}
