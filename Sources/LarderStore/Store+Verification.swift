import Crypto
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Store {
    /// Checks every entry against its body file (it exists, has the indexed size, and its SHA-256
    /// is its name), then looks for body files no entry references and stale temporary files.
    /// With `repair`, removes broken entries (and their bodies when unreferenced), orphan bodies
    /// and stale temporary files.
    ///
    /// Entries are read ``keysPerQuery`` at a time in row order and bodies are hashed in 64 KiB
    /// reads, so memory stays bounded for any cache size. Orphans are looked for, and deleted,
    /// inside a write transaction per body folder, so a body another process is installing is
    /// never taken for one.
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
            var brokenKeys: [CacheKey] = []
            var found: [VerificationReport.Problem] = []
            for row in rows {
                let url: String = try row.decode(forColumn: "url")
                let hash: String = try row.decode(forColumn: "body_hash")
                let size: Int64 = try row.decode(forColumn: "body_size")
                report.checkedEntries += 1
                guard let kind = try self.checkBody(hash: hash, size: size, report: &report) else { continue }
                found.append(VerificationReport.Problem(subject: url, kind: kind, repaired: false))
                brokenKeys.append(CacheKey(storedRawValue: try row.decode(forColumn: "key")))
            }
            if repair, !brokenKeys.isEmpty {
                _ = try await self.removeEntries(brokenKeys)
                for index in found.indices { found[index].repaired = true }
            }
            report.problems += found
        }
        report.problems += try await self.findOrphanBodies(repair: repair)
        report.problems += self.findStaleTemporaryFiles(repair: repair)
        return report
    }

    /// The problem with the body `hash` of an entry, or nil when it is sound.
    private func checkBody(hash: String, size: Int64, report: inout VerificationReport) throws -> VerificationReport.Kind? {
        guard Self.isSHA256Hex(hash) else { return .malformedRow }
        let path = self.bodyPath(forHash: hash)
        guard let actualSize = try POSIXFile.regularFileSize(path) else { return .missingBody(path: path) }
        guard actualSize == size else { return .wrongSize(path: path, indexed: size, actual: actualSize) }
        let actual = try BodyFileHash.sha256Hex(ofFileAt: path)
        report.checkedBytes += actualSize
        return actual == hash ? nil : .wrongHash(path: path, actual: actual)
    }

    /// Body files that no entry references, one body folder (and write transaction) at a time.
    private func findOrphanBodies(repair: Bool) async throws -> [VerificationReport.Problem] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: self.bodiesDirectory)) ?? []
        var problems: [VerificationReport.Problem] = []
        for folder in folders.sorted() where folder.utf8.count == 2 {
            let folderPath = "\(self.bodiesDirectory)/\(folder)"
            let found = try await self.pool.write { db -> [VerificationReport.Problem] in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
                var found: [VerificationReport.Problem] = []
                for name in names.sorted() where Self.isSHA256Hex(name) && name.hasPrefix(folder) {
                    let referenced =
                        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM entry WHERE body_hash = ?)", arguments: [name]) ?? false
                    guard !referenced else { continue }
                    let path = "\(folderPath)/\(name)"
                    var repaired = false
                    if repair {
                        try POSIXFile.removeFile(path)
                        repaired = true
                    }
                    found.append(VerificationReport.Problem(subject: path, kind: .orphanBody, repaired: repaired))
                }
                return found
            }
            problems += found
        }
        return problems
    }

    /// Files in `tmp/` older than ``staleTemporaryFileAge``; younger ones may be bodies being written.
    private func findStaleTemporaryFiles(repair: Bool) -> [VerificationReport.Problem] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: self.temporaryDirectory)) ?? []
        let cutoff = Date().addingTimeInterval(-Self.staleTemporaryFileAge)
        var problems: [VerificationReport.Problem] = []
        for name in names.sorted() {
            let path = "\(self.temporaryDirectory)/\(name)"
            guard let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date, modified < cutoff else {
                continue
            }
            var repaired = false
            if repair {
                do {
                    try POSIXFile.removeFile(path)
                    repaired = true
                } catch {
                    self.logger.warning("Cannot delete a stale temporary file", metadata: ["path": "\(path)", "error": "\(error)"])
                }
            }
            problems.append(VerificationReport.Problem(subject: path, kind: .staleTemporaryFile, repaired: repaired))
        }
        return problems
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
