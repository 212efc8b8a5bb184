import Foundation
import GRDB
import LarderHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Installing finished bodies: each is renamed into `bodies/` and its row written in install
/// batches (``InstallQueue``), one ``BodyBarrier`` and one write transaction per batch.
extension Store {
    /// Moves a complete, hashed temporary body into `bodies/` and records its entry (or, when
    /// `staged`, its staged row: ``BodyWriter/stage(key:head:expectedLength:revision:expectedHash:)``), in the
    /// write transaction of its install batch (see ``BodyWriter/commit(key:head:kind:expectedLength:revision:expectedHash:)``).
    /// `descriptor` (the temporary file, open and locked) must stay open until this returns.
    func install(
        temporaryPath: String,
        descriptor: Int32,
        hash: String,
        size: Int64,
        key: CacheKey,
        head: StoredResponseHead,
        kind: EntryKind,
        revision: String?,
        staged: Bool = false
    ) async throws -> CachedEntry {
        let pending = self.pendingInstall(
            temporaryPath: temporaryPath, descriptor: descriptor, hash: hash, size: size, key: key, head: head, kind: kind,
            revision: revision, staged: staged)
        let (storedRow, storedKind) = try await self.installs.submit(pending) { batch in
            try await self.commit(batch)
        }
        return CachedEntry(
            key: key,
            url: pending.row.url,
            status: head.status,
            headers: pending.headers,
            varyRequestHeaders: head.varyRequestHeaders,
            kind: storedKind,
            bodyHash: hash,
            bodySize: size,
            bodyPath: pending.bodyPath,
            requestTime: Date(timeIntervalSince1970: pending.row.requestTime),
            responseTime: Date(timeIntervalSince1970: pending.row.responseTime),
            storedAt: Date(timeIntervalSince1970: storedRow.storedAt),
            revision: storedRow.revision
        )
    }

    /// Stages finished bodies (each as ``BodyWriter/stage(key:head:expectedLength:revision:expectedHash:)``
    /// does) in one install batch, so that they share its transaction's log pages, and their caller
    /// waits once for all. Each succeeds or fails
    /// on its own; returns each one's size or failure, in order. A body that fails its length or
    /// hash check is discarded and never reaches the batch.
    public func stage(_ bodies: [StagedBody]) async -> [Result<Int64, any Error>] {
        let prepared = bodies.map { body in
            Result { () throws -> PendingInstall in
                let (hash, descriptor) = try body.writer.finishWriting(expectedLength: body.expectedLength, expectedHash: body.expectedHash)
                return self.pendingInstall(
                    temporaryPath: body.writer.temporaryPath, descriptor: descriptor, hash: hash, size: body.writer.bytesWritten,
                    key: body.key, head: body.head, kind: .precached, revision: body.revision, staged: true)
            }
        }
        var installed = await self.installs.submit(prepared.compactMap { try? $0.get() }) { batch in
            try await self.commit(batch)
        }[...]
        return zip(bodies, prepared).map { body, prepared in
            prepared.flatMap { install in
                // One outcome per install submitted, in order.
                let outcome = installed.removeFirst()
                body.writer.closeAfterInstall(succeeded: (try? outcome.get()) != nil)
                return outcome.map { _ in install.size }
            }
        }
    }

    /// What the install batch needs for one body.
    private func pendingInstall(
        temporaryPath: String,
        descriptor: Int32,
        hash: String,
        size: Int64,
        key: CacheKey,
        head: StoredResponseHead,
        kind: EntryKind,
        revision: String?,
        staged: Bool
    ) -> PendingInstall {
        let headers = HeaderField.storable(head.headers)
        let url = head.url.utf8.firstIndex(of: UInt8(ascii: "#")).map { String(head.url[..<$0]) } ?? head.url
        return PendingInstall(
            temporaryPath: temporaryPath,
            descriptor: descriptor,
            bodyPath: self.bodyPath(forHash: hash),
            bodyFolder: "\(self.bodiesDirectory)/\(hash.prefix(2))",
            size: size,
            kind: kind,
            row: IndexRow(
                key: key.rawValue,
                url: url,
                status: head.status,
                headers: HeaderListCoding.encode(headers),
                vary: HeaderListCoding.encode(head.varyRequestHeaders),
                kind: kind.rawValue,
                bodyHash: hash,
                bodySize: size,
                requestTime: head.requestTime.timeIntervalSince1970,
                responseTime: head.responseTime.timeIntervalSince1970,
                storedAt: 0,
                revision: revision
            ),
            headers: headers,
            isStaged: staged
        )
    }

    /// Installs a batch of finished bodies: the barrier's first step makes their contents durable,
    /// then one write transaction renames them into `bodies/`, makes those names durable (the
    /// barrier's second step) and writes the rows in one savepoint (each in a savepoint of its own
    /// when one of them fails). A body whose rename or row fails fails alone; when a step of the
    /// barrier fails, the whole batch does and no row is written.
    ///
    /// Staged bodies skip the barrier: their rows say they are not durable yet, and their game
    /// version's switch makes them all durable at once (``Store/saveGameVersion(_:files:installing:replaces:)``).
    /// On a file system that keeps nothing across a restart no body takes one (``takesBarriers``).
    private func commit(_ batch: [PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>] {
        let barrierBatch = self.takesBarriers ? batch : []
        BodyBarrier.startWriteback(barrierBatch.filter(\.isStaged).map { (descriptor: $0.descriptor, path: $0.temporaryPath) })
        let files = barrierBatch.filter { !$0.isStaged }.map { (descriptor: $0.descriptor, path: $0.temporaryPath) }
        if !files.isEmpty {
            do {
                try await POSIXFile.onSyncThread { [barrier] in try barrier.flushContents(files) }
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
        return try await self.write { db, released in
            // The file work happens under the write lock: another writer cannot delete a body (as
            // the last reference of its old entry) between its rename and its row.
            let placements = batch.map { install in Result { try self.place(install) } }
            let renamed = zip(batch, placements).filter { (try? $1.get()) == true }.map(\.0)
            // An entry's body found stored already may be a staged one not durable yet (staged
            // before, or in this batch): this row relies on it, so it is flushed now rather than
            // at its version's switch.
            let stagedNow = Set(renamed.filter(\.isStaged).map(\.row.bodyHash))
            let reused = try zip(batch, placements).filter { install, placement in
                guard self.takesBarriers, !install.isStaged, case .success(false) = placement else { return false }
                return try stagedNow.contains(install.row.bodyHash) || Self.isStagedNotDurable(db, hash: install.row.bodyHash)
            }.map(\.0)
            let flushedNames = Set(renamed.filter { self.takesBarriers && !$0.isStaged }.map(\.bodyFolder)).sorted()
            if !flushedNames.isEmpty || !reused.isEmpty {
                do {
                    if !flushedNames.isEmpty {
                        try self.barrier.flushNames(flushedNames)
                    }
                    _ = try self.barrier.flushPlaced(reused.map(\.bodyPath))
                } catch {
                    // Not known to be on disk, so no row may name them: what this batch renamed
                    // into place goes again (an equal body stored before stays).
                    for install in renamed {
                        try? POSIXFile.removeFile(install.bodyPath)
                    }
                    return batch.map { _ in .failure(error) }
                }
            }
            // The rows in one savepoint; only when one of them fails does each go again in a
            // savepoint of its own, so that it fails alone (two statements a row saved otherwise).
            var batchReleased = Set<String>()
            var recorded: [Result<(IndexRow, EntryKind), any Error>] = []
            do {
                try db.inSavepoint {
                    recorded = try zip(batch, placements).map { install, placement in
                        switch placement {
                        case .success:
                            .success(try self.record(install, db, released: &batchReleased))
                        case .failure(let error):
                            .failure(error)
                        }
                    }
                    return .commit
                }
                released.formUnion(batchReleased)
                return recorded
            } catch {
                return zip(batch, placements).map { install, placement in
                    placement.flatMap { _ in
                        Result {
                            var stored = (install.row, install.kind)
                            // What a failed row releases goes too (a refused runtime body, say).
                            try db.inSavepoint {
                                stored = try self.record(install, db, released: &released)
                                return .commit
                            }
                            return stored
                        }
                    }
                }
            }
        }
    }

    /// Puts a body into `bodies/`: renamed into place (returns true), or its temporary file dropped
    /// when an equal body (same hash and size) is stored already (false).
    private func place(_ pending: PendingInstall) throws -> Bool {
        if try POSIXFile.regularFileSize(pending.bodyPath) == pending.size {
            try POSIXFile.removeFile(pending.temporaryPath)
            return false
        }
        // No body yet, or a damaged one, which the rename replaces atomically.
        do {
            try POSIXFile.renameFile(pending.temporaryPath, to: pending.bodyPath)
        } catch {
            // Its folder was removed behind the store's back: made again, once (checked only when
            // the rename fails, not with a stat before every body).
            guard case StoreError.io(_, _, let code) = error, code == ENOENT, POSIXFile.exists(pending.temporaryPath) else {
                throw error
            }
            try POSIXFile.makeDirectory(pending.bodyFolder)
            try POSIXFile.syncDirectory(self.bodiesDirectory)
            try POSIXFile.renameFile(pending.temporaryPath, to: pending.bodyPath)
        }
        return true
    }

    /// One body's row, inside the batch's transaction, after the barrier.
    private func record(_ pending: PendingInstall, _ db: Database, released: inout Set<String>) throws -> (IndexRow, EntryKind) {
        var row = pending.row
        var storedKind = pending.kind
        if pending.isStaged {
            row.storedAt = Date().timeIntervalSince1970
            try Self.upsertStaged(row, contentType: pending.contentType, durable: !self.takesBarriers, db, releasing: &released)
            return (row, storedKind)
        }
        let previous = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT body_hash, kind, revision FROM entry WHERE key = ?"),
            arguments: [row.key]
        )
        let previousHash: String? = try previous?.decode(forColumn: "body_hash")
        if pending.kind == .runtime, try Self.isHeldByCompleteVersion(db, key: row.key) {
            // Nothing is written; the body just renamed into place goes unless something names it.
            released.insert(row.bodyHash)
            throw StoreError.heldByCompleteVersion(key: row.key)
        }
        if let previous, pending.kind == .runtime {
            // A runtime commit never unpins a precached entry, and keeps the stored revision
            // unless it brings one.
            let previousKind: String = try previous.decode(forColumn: "kind")
            if previousKind == EntryKind.precached.rawValue {
                storedKind = .precached
                row.kind = previousKind
            }
            if row.revision == nil {
                row.revision = try previous.decode(forColumn: "revision")
            }
        }
        row.storedAt = Date().timeIntervalSince1970
        try row.upsert(db, contentType: pending.contentType)
        if let previousHash, previousHash != row.bodyHash {
            released.insert(previousHash)
        }
        return (row, storedKind)
    }

    /// Whether `hash` is the body of a staged row not made durable yet (one index probe).
    private static func isStagedNotDurable(_ db: Database, hash: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM staged_entry WHERE body_hash = ? AND durable = 0)"),
            arguments: [hash]
        ) ?? false
    }

    /// Whether a response stored at run time under `key` would be refused
    /// (``StoreError/heldByCompleteVersion(key:)``): asked before a fetch's answer is relayed, so
    /// that it is not said to be stored.
    public func isHeldByCompleteVersion(_ key: CacheKey) async throws -> Bool {
        try await self.pool.read { db in try Self.isHeldByCompleteVersion(db, key: key.rawValue) }
    }

    /// Whether `key` (a plain key, or its variant or partial entry) is a file of a game whose
    /// recorded version is complete and whose precached entry for it is stored: that version
    /// answers for the file, so a response stored at run time (a page a browser fetched after a
    /// deploy, while the new version is not complete) must not replace or stand beside it, or the
    /// game would be served offline as a mix of two versions. One lookup in `game_file_key`.
    static func isHeldByCompleteVersion(_ db: Database, key: String) throws -> Bool {
        let plain = CacheKey(storedRawValue: key).plain
        return try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM game_file JOIN game ON game.slug = game_file.game_slug
                    WHERE game_file.key = ?1 AND game_file.state = 'cached'
                        AND game.state = 'ready' AND game.files_cached = game.files_listed
                        AND EXISTS (SELECT 1 FROM entry WHERE entry.key = ?1 AND entry.kind = 'precached'))
                    """),
            arguments: [plain.rawValue]
        ) ?? false
    }
}
