import Crypto
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

extension Store {
    /// Checks every entry against its body file (it exists, has the indexed size, and its SHA-256
    /// is its name), then looks for leftovers of interrupted runs: body files no entry references
    /// and temporary files no writer holds. With `repair`, removes broken entries (and their bodies
    /// when unreferenced) and the leftovers.
    ///
    /// Safe beside a running `larder serve` or `larder precache`: entries are read
    /// ``keysPerQuery`` at a time and checked outside any transaction, and every problem found is
    /// checked again inside a write transaction (the row may have been replaced meanwhile, taking
    /// its old body with it); only a problem that still holds there is reported, and `repair`
    /// deletes exactly that row (`WHERE key = ? AND body_hash = ?`), never a newer one. Bodies are
    /// hashed in 64 KiB reads, so memory stays bounded for any cache size.
    public func verifyEntries(repair: Bool) async throws -> VerificationReport {
        var report = VerificationReport()
        var lastID: Int64 = 0
        while true {
            let rows = try await self.pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT id, key, url, body_hash, body_size FROM entry WHERE id > ? ORDER BY id LIMIT ?",
                    arguments: [lastID, Self.keysPerQuery]
                )
            }
            guard let last = rows.last else { break }
            lastID = try last.decode(forColumn: "id")
            for row in rows {
                let checked = CheckedEntry(
                    key: try row.decode(forColumn: "key"),
                    url: try row.decode(forColumn: "url"),
                    hash: try row.decode(forColumn: "body_hash"),
                    size: try row.decode(forColumn: "body_size")
                )
                report.checkedEntries += 1
                var hashedBytes: Int64 = 0
                guard try self.checkBody(hash: checked.hash, size: checked.size, hashedBytes: &hashedBytes) != nil else {
                    report.checkedBytes += hashedBytes
                    continue
                }
                if let problem = try await self.confirm(checked, repair: repair) {
                    report.problems.append(problem)
                }
            }
        }
        let leftovers = try await self.findLeftovers(remove: repair)
        report.problems += (leftovers.orphanBodies + leftovers.orphanQueuedBodies).map {
            VerificationReport.Problem(subject: $0, kind: .orphanBody, repaired: repair)
        }
        report.problems += leftovers.temporaryFiles.map {
            VerificationReport.Problem(subject: $0, kind: .leftoverTemporaryFile, repaired: repair)
        }
        return report
    }

    /// An entry as verification read it.
    private struct CheckedEntry: Sendable {
        var key: String
        var url: String
        var hash: String
        var size: Int64
    }

    /// Checks `entry` again under the write lock, where no other writer can replace its row or
    /// delete its body meanwhile; returns the problem if it still holds (removing the row with
    /// `repair`), nil when the row changed or the body is sound after all.
    private func confirm(_ entry: CheckedEntry, repair: Bool) async throws -> VerificationReport.Problem? {
        try await self.write { db, released in
            let current = try Row.fetchOne(
                db,
                sql: "SELECT body_hash, body_size FROM entry WHERE key = ?",
                arguments: [entry.key]
            )
            guard let current, try current.decode(String.self, forColumn: "body_hash") == entry.hash,
                try current.decode(Int64.self, forColumn: "body_size") == entry.size
            else {
                return nil
            }
            var hashedBytes: Int64 = 0
            guard let kind = try self.checkBody(hash: entry.hash, size: entry.size, hashedBytes: &hashedBytes) else {
                return nil
            }
            if repair {
                try db.execute(
                    sql: "DELETE FROM entry WHERE key = ? AND body_hash = ?",
                    arguments: [entry.key, entry.hash]
                )
                released.insert(entry.hash)
            }
            return VerificationReport.Problem(subject: entry.url, kind: kind, repaired: repair)
        }
    }

    /// The problem with the body `hash` of an entry, or nil when it is sound; adds the bytes hashed.
    private func checkBody(hash: String, size: Int64, hashedBytes: inout Int64) throws -> VerificationReport.Kind? {
        guard Self.isSHA256Hex(hash) else { return .malformedRow }
        let path = self.bodyPath(forHash: hash)
        guard let actualSize = try POSIXFile.regularFileSize(path) else { return .missingBody(path: path) }
        guard actualSize == size else { return .wrongSize(path: path, indexed: size, actual: actualSize) }
        let actual = try BodyFileHash.sha256Hex(ofFileAt: path)
        hashedBytes += actualSize
        return actual == hash ? nil : .wrongHash(path: path, actual: actual)
    }
}

/// Hashing a stored body file again, for verification.
enum BodyFileHash {
    /// The SHA-256 of a file, read 64 KiB at a time.
    static func sha256Hex(ofFileAt path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.io(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
