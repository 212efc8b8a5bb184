import Foundation
import GRDB
import LarderHTTP
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// A cache directory: a SQLite index (`index.sqlite`, WAL) and content-addressed body files.
///
/// Layout: `index.sqlite`, `bodies/ab/<sha256>` (the first two hex digits name the folder),
/// `tmp/` for bodies being written, `runs/` with a locked marker per open store, and
/// `index.lock`, held while a store opens the index, and `index.changes`, the count of committed
/// changes that lets every process drop its remembered lookups at once (``IndexChangeCounter``). Several
/// `Store` instances, in one process or several (`larder serve` and `larder precache`), may share
/// a directory.
///
/// Crash safety: a body is renamed into `bodies/` and made durable (with the other bodies of its
/// install batch, by one ``BodyBarrier``; none on a file system that keeps nothing across a
/// restart, ``takesBarriers``) before the index row that names it is committed, and a body file is deleted only after the transaction that removed its last row has
/// committed (``write(releasingBodies:)``). A crash or a failed commit in between leaves an orphan
/// file, never a row without its body; ``removeLeftovers()`` deletes orphans later. A row whose body
/// file is missing or has another size is never served.
public final class Store: Sendable {
    /// The absolute path of the cache directory.
    public let directory: String
    /// `<directory>/bodies`.
    let bodiesDirectory: String
    /// `<directory>/tmp`.
    let temporaryDirectory: String
    /// `<directory>/runs`: one locked marker file per open store (see ``removeLeftovers(pause:)``).
    let runsDirectory: String
    /// This store's marker in `runs/`, locked while it is open and deleted by ``close()``: a marker
    /// left unlocked is a store that was killed.
    let runMarker: (path: String, descriptor: Int32)
    let logger: Logger
    let pool: DatabasePool
    /// The connection index lookups use, synchronously, from whatever thread asks
    /// (``lookupRead(_:)``).
    let lookups: DatabaseQueue
    /// Recent lookups, cleared by every change this process commits (see ``variants(of:)``).
    let memo: EntryMemo
    /// Finished bodies waiting for their index rows, committed in batches.
    let installs = InstallQueue()
    /// Makes each install batch durable before its rows are committed.
    let barrier: BodyBarrier
    /// Whether the cache directory's file system keeps files across a restart
    /// (``BodyBarrier/fileSystemKeepsFiles(at:)``), asked once when the store opens. When it does
    /// not (tmpfs), ``barrier`` is never taken and staged rows are written durable: a restart
    /// loses the index with the bodies, and a killed process leaves its writes whole in memory.
    let takesBarriers: Bool

    /// Opens the cache directory at `directory`, creating it, its index and its folders as needed.
    ///
    /// Opening does not look at entries, body files or `tmp/`, so it costs the same for any cache
    /// size; what a crash left behind is for ``removeLeftovers()``.
    public convenience init(directory: String, logger: Logger = Logger(label: "larder.store")) throws {
        try self.init(directory: directory, logger: logger, migratingUpTo: nil)
    }

    /// Opens the cache directory, migrating its index up to the migration named `lastMigration`, or
    /// up to the newest one when nil. Tests use an earlier migration (`@testable`) to build an index
    /// as an earlier version of Larder left it.
    ///
    /// `lookupTrust` is how long a remembered lookup is trusted at most (see ``EntryMemo``); tests
    /// on a loaded machine lengthen it. Tests give a `barrier` that fails or looks at the store
    /// between an install batch's barrier steps and its commit, and say whether the file system
    /// keeps files (`keepsFiles`, asked of it when nil) so that they hold in a temporary folder on
    /// tmpfs too.
    init(
        directory: String,
        logger: Logger = Logger(label: "larder.store"),
        migratingUpTo lastMigration: String?,
        lookupTrust: TimeInterval? = nil,
        barrier: BodyBarrier = .system,
        keepsFiles: Bool? = nil
    ) throws {
        self.barrier = barrier
        let directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.directory = directory
        self.bodiesDirectory = directory + "/bodies"
        self.temporaryDirectory = directory + "/tmp"
        self.runsDirectory = directory + "/runs"
        self.logger = logger

        do {
            // An existing directory keeps its mode (PrivateDirectory.warnIfLoose says so).
            try PrivateDirectory.create(directory)
        } catch {
            throw StoreError.cannotOpen(directory: directory, reason: "cannot create \(directory): \(error)")
        }
        for folder in [self.bodiesDirectory, self.temporaryDirectory, self.runsDirectory] {
            do {
                try POSIXFile.makeDirectory(folder)
            } catch {
                throw StoreError.cannotOpen(directory: directory, reason: "cannot create \(folder): \(error)")
            }
        }

        self.takesBarriers = keepsFiles ?? BodyBarrier.fileSystemKeepsFiles(at: self.bodiesDirectory)

        // Every body folder exists from the start: a write never pays for creating one and
        // syncing the parent (256 of them would come in the first few hundred writes).
        do {
            var created = false
            for prefix in 0..<256 {
                let name = String(prefix, radix: 16)
                created = try POSIXFile.makeDirectory("\(self.bodiesDirectory)/\(prefix < 16 ? "0" : "")\(name)") || created
            }
            if created {
                try POSIXFile.syncDirectory(self.bodiesDirectory)
            }
        } catch {
            throw StoreError.cannotOpen(directory: directory, reason: "cannot create the body folders: \(error)")
        }

        let changes: IndexChangeCounter?
        do {
            changes = try IndexChangeCounter(path: directory + "/index.changes")
        } catch {
            // Still correct without it: remembered lookups are then trusted for a second only.
            logger.warning("Cannot share index changes with other processes", metadata: ["error": "\(error)"])
            changes = nil
        }
        self.memo = EntryMemo(changes: changes, lifetime: lookupTrust)

        var configuration = Configuration()
        configuration.label = "larder.store"
        // Another process may hold the write lock (larder serve and larder precache share the index).
        // In WAL mode GRDB also sets `synchronous = NORMAL`: a crash keeps the index consistent.
        configuration.busyMode = .timeout(5)
        // Statement journals in memory: a statement whose triggers touch many pages (each of a
        // game's rows installed from staged_entry) would otherwise spill them to a temporary file.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Deleted rows (a delivered write's credentials) are zeroed in the pages written anyway.
            try db.execute(sql: "PRAGMA secure_delete = FAST")
        }
        let indexPath = directory + "/index.sqlite"
        do {
            // Opening is serialised across processes and threads: SQLite answers "database is locked" at
            // once, without waiting for the busy timeout, when two connections switch a new index to WAL
            // together; and GRDB's migrator checks for applied migrations outside its transaction.
            self.pool = try POSIXFile.withExclusiveLock(path: directory + "/index.lock") {
                try Self.createIndexFile(indexPath)
                let pool = try DatabasePool(path: indexPath, configuration: configuration)
                if let lastMigration {
                    try StoreSchema.migrator.migrate(pool, upTo: lastMigration)
                } else {
                    try StoreSchema.migrator.migrate(pool)
                }
                return pool
            }
            var lookupConfiguration = Configuration()
            lookupConfiguration.label = "larder.store.lookups"
            lookupConfiguration.readonly = true
            lookupConfiguration.busyMode = .timeout(5)
            self.lookups = try DatabaseQueue(path: indexPath, configuration: lookupConfiguration)
        } catch {
            throw StoreError.cannotOpen(directory: directory, reason: "cannot open the index \(indexPath): \(error)")
        }

        self.pool.add(transactionObserver: self.memo, extent: .databaseLifetime)
        do {
            self.runMarker = try POSIXFile.createLockedFile(in: self.runsDirectory, suffix: ".run")
        } catch {
            throw StoreError.cannotOpen(directory: directory, reason: "cannot create a marker in \(self.runsDirectory): \(error)")
        }
    }

    deinit {
        POSIXFile.closeDescriptor(self.runMarker.descriptor)
    }

    /// Creates an empty index file with ``PrivateDirectory/fileMode`` when there is none: SQLite
    /// would create it with the process's umask (0644 as a rule), and gives its `-wal` and `-shm`
    /// files the mode of the index file. An empty file is an empty database to SQLite.
    private static func createIndexFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, PrivateDirectory.fileMode)
        guard descriptor >= 0 else {
            throw StoreError.io(path: path, operation: "create", errno: errno)
        }
        POSIXFile.closeDescriptor(descriptor)
    }

    /// The stored entry for `key`, or nil.
    ///
    /// Also nil (with a log message) when the entry's body file is missing or its size differs from
    /// the index, or the row cannot be decoded: a wrong body is never served.
    public func entry(for key: CacheKey) async throws -> CachedEntry? {
        let row = try self.lookupRead { db in
            try IndexRow.fetch(db, key: key.rawValue)
        }
        guard let row else {
            return nil
        }
        guard let entry = self.decode(row) else {
            return nil
        }
        let size = try POSIXFile.regularFileSize(entry.bodyPath)
        guard size == entry.bodySize else {
            self.logger.warning(
                "Body file of a cached entry is missing or has the wrong size; not serving it",
                metadata: [
                    "key": "\(key)", "path": "\(entry.bodyPath)", "indexedSize": "\(entry.bodySize)",
                    "fileSize": "\(size.map { String($0) } ?? "missing")",
                ]
            )
            return nil
        }
        return entry
    }

    /// Runs one lookup statement on the calling thread, outside a transaction, on the store's own
    /// read-only lookup connection.
    ///
    /// A lookup is a single `SELECT` on the key index, atomic on its own in WAL mode (and never
    /// blocked by a writer). Read from the page cache it takes a few microseconds, far less than
    /// the hop to a reader's thread and back that an asynchronous read costs (about 200 µs per
    /// lookup, most of it switching threads; Benchmarks/RESULTS.md), so hits wait on no other
    /// thread. It must not take one of the pool's readers: those are released by asynchronous
    /// reads resuming on Swift's cooperative threads, so cooperative threads blocked waiting for
    /// a reader could wait forever. Lookups wait only for each other, for microseconds.
    func lookupRead<T>(_ statement: (Database) throws -> T) throws -> T {
        try self.lookups.inDatabase(statement)
    }

    /// Starts streaming a body to a new temporary file in `tmp/` (its name is random, never
    /// derived from a URL).
    ///
    /// The writer holds an exclusive `flock` on its file for as long as it lives, so a file in
    /// `tmp/` that can be locked belongs to no running writer, in any process, and is left over
    /// from a crash (``removeLeftovers()``).
    public func makeBodyWriter() throws -> BodyWriter {
        let (path, descriptor) = try POSIXFile.createLockedFile(in: self.temporaryDirectory, suffix: ".partial")
        return BodyWriter(store: self, temporaryPath: path, descriptor: descriptor)
    }

    /// Removes the entry for `key`, its variants (``variants(of:)``) and its partial entry
    /// (``CacheKey/partial``), deleting body files no other entry references. Returns whether
    /// there was an entry.
    /// - Parameter keepingPrecached: leave precached entries (remove runtime ones only).
    @discardableResult
    public func removeEntry(for key: CacheKey, keepingPrecached: Bool = false) async throws -> Bool {
        try await self.write { db, released in
            try Self.removeEntry(db, key: key, keepingPrecached: keepingPrecached, releasing: &released)
        }
    }

    /// ``removeEntry(for:keepingPrecached:)`` inside a write transaction: the removed rows' body
    /// hashes go to `released`.
    static func removeEntry(_ db: Database, key: CacheKey, keepingPrecached: Bool, releasing released: inout Set<String>) throws -> Bool {
        let kinds = keepingPrecached ? " AND kind = '\(EntryKind.runtime.rawValue)'" : ""
        let condition = "(key = ?1 OR key = ?4 OR (key >= ?2 AND key < ?3))\(kinds)"
        let variants = key.variantKeys
        let arguments: StatementArguments = [key.rawValue, variants.lowerBound, variants.upperBound, key.partial.rawValue]
        let hashes = try String.fetchAll(db, sql: "SELECT body_hash FROM entry WHERE \(condition)", arguments: arguments)
        guard !hashes.isEmpty else {
            return false
        }
        try db.execute(sql: "DELETE FROM entry WHERE \(condition)", arguments: arguments)
        released.formUnion(hashes)
        return true
    }

    /// How many entries and distinct bodies the index holds, the bytes of those bodies, and how many
    /// entries are precached with the bytes of their bodies.
    ///
    /// Read from counters that triggers keep as entries change, so this costs the same for any cache
    /// size (see ``totals()`` for runtime and logical totals).
    public func statistics() async throws -> StoreStatistics {
        try await self.pool.read { db in
            let totals = try Self.readTotals(db)
            let bodies = try Row.fetchOne(db, sql: "SELECT bodies, bytes FROM body_totals WHERE id = 0")
            return StoreStatistics(
                entries: totals.entries,
                bodies: try bodies?.decode(forColumn: "bodies") ?? 0,
                bodyBytes: try bodies?.decode(forColumn: "bytes") ?? 0,
                precachedEntries: totals.precachedEntries,
                precachedBytes: totals.precachedBytes
            )
        }
    }

    /// Runs `sql` in one write transaction. Only tests use it (`@testable`), to write rows the way an
    /// earlier version of Larder did.
    func executeForTesting(sql: String) async throws {
        try await self.pool.write { db in
            try db.execute(sql: sql)
        }
    }

    /// The totals and statistics counted from the entry rows themselves, and whether the search
    /// index matches them (FTS5 `integrity-check` against the `entry` table). Only tests use it
    /// (`@testable`), to check that the counters and index the triggers keep are exact; it reads
    /// every entry.
    func recountForTesting() async throws -> (
        totals: StoreTotals, statistics: StoreStatistics, searchIndexIsSound: Bool
    ) {
        try await self.pool.write { db in
            let totals = try Self.totals(db, sql: "SELECT kind, COUNT(*) AS entries, SUM(body_size) AS bytes FROM entry GROUP BY kind")
            let bodies = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS bodies, COALESCE(SUM(size), 0) AS bytes
                    FROM (SELECT MAX(body_size) AS size FROM entry GROUP BY body_hash)
                    """
            )
            let statistics = StoreStatistics(
                entries: totals.entries,
                bodies: try bodies?.decode(forColumn: "bodies") ?? 0,
                bodyBytes: try bodies?.decode(forColumn: "bytes") ?? 0,
                precachedEntries: totals.precachedEntries,
                precachedBytes: totals.precachedBytes
            )
            var searchIndexIsSound = true
            do {
                try Self.indexWaitingSearchText(db)
                try db.execute(sql: "INSERT INTO entry_search (entry_search, rank) VALUES ('integrity-check', 1)")
            } catch {
                searchIndexIsSound = false
            }
            return (totals, statistics, searchIndexIsSound)
        }
    }

    /// Closes the index (graceful shutdown). The store must not be used afterwards.
    public func close() throws {
        try self.lookups.close()
        // Readers first, so that the writer is this process's last connection: SQLite then
        // checkpoints and deletes the WAL (unless another process has the index open), and the
        // next open need not read the whole WAL back (a re-run right after a precache read 4 MiB).
        // `DatabasePool.close()` alone closes the writer first.
        self.pool.releaseMemory()
        try self.pool.close()
        // A clean close: the next start need not look for what a crash would have left.
        try? POSIXFile.removeFile(self.runMarker.path)
    }

    /// Where the body with this SHA-256 lives, whether or not it is stored:
    /// `bodies/<first two hex digits>/<hash>`.
    public func bodyPath(forHash hash: String) -> String {
        "\(self.bodiesDirectory)/\(hash.prefix(2))/\(hash)"
    }

    /// Runs `changes` in one write transaction. The body hashes `changes` adds to its `released`
    /// set (those of rows it deleted or replaced) are deleted only once that transaction has
    /// committed, and only if no row references them by then: a crash or a failed commit leaves
    /// every row with its body (and perhaps an orphan file, for ``removeLeftovers()``).
    func write<T: Sendable>(
        releasingBodies changes: @escaping @Sendable (Database, inout Set<String>) throws -> T
    ) async throws -> T {
        try await self.pool.writeWithoutTransaction { db in
            var released = Set<String>()
            let result: T
            try db.beginTransaction(.immediate)
            do {
                result = try changes(db, &released)
                try db.commit()
            } catch {
                if db.isInsideTransaction {
                    try? db.rollback()
                }
                throw error
            }
            self.deleteUnreferencedBodies(db, hashes: released)
            return result
        }
    }

    /// Deletes the body file of each of `hashes` that no row references, in a write transaction of
    /// its own that changes no row: no writer (in any process) can add a reference between the check
    /// and the delete, since bodies are moved into place under the same lock. A failure leaves
    /// orphan files and is only logged.
    func deleteUnreferencedBodies(_ db: Database, hashes: Set<String>) {
        guard !hashes.isEmpty else {
            return
        }
        do {
            try db.inTransaction(.immediate) {
                for hash in hashes {
                    try self.deleteBodyIfUnreferenced(db, hash: hash)
                }
                return .commit
            }
        } catch {
            self.logger.warning(
                "Cannot delete unreferenced body files; they are removed at the next start",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Deletes the body file for `hash` when no row references it. Runs inside a write transaction
    /// that has committed every row change already (or makes none).
    func deleteBodyIfUnreferenced(_ db: Database, hash: String) throws {
        guard Self.isSHA256Hex(hash) else {
            self.logger.error(
                "Index row has a malformed body hash; not deleting anything",
                metadata: ["hash": "\(hash)"]
            )
            return
        }
        if try !Self.isReferenced(db, hash: hash) {
            try POSIXFile.removeFile(self.bodyPath(forHash: hash))
        }
    }

    /// Whether any row names the body `hash`, an entry's or a staged one's (indexed lookups).
    static func isReferenced(_ db: Database, hash: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS(SELECT 1 FROM entry WHERE body_hash = ?1)
                        OR EXISTS(SELECT 1 FROM staged_entry WHERE body_hash = ?1)
                    """
            ),
            arguments: [hash]
        ) ?? false
    }

    /// The entry a row describes, or nil (logged) when the row is malformed.
    func decode(_ row: IndexRow) -> CachedEntry? {
        guard let headers = HeaderListCoding.decode(row.headers),
            let vary = HeaderListCoding.decode(row.vary),
            let kind = EntryKind(rawValue: row.kind),
            Self.isSHA256Hex(row.bodyHash)
        else {
            self.logger.error("Index row is malformed; not serving it", metadata: ["key": "\(row.key)"])
            return nil
        }
        return CachedEntry(
            key: CacheKey(storedRawValue: row.key),
            url: row.url,
            status: row.status,
            headers: headers,
            varyRequestHeaders: vary,
            kind: kind,
            bodyHash: row.bodyHash,
            bodySize: row.bodySize,
            bodyPath: self.bodyPath(forHash: row.bodyHash),
            requestTime: Date(timeIntervalSince1970: row.requestTime),
            responseTime: Date(timeIntervalSince1970: row.responseTime),
            storedAt: Date(timeIntervalSince1970: row.storedAt),
            revision: row.revision
        )
    }

    /// Whether `text` is 64 lower-case hex digits (a body hash that is safe to use in a path).
    static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            }
    }
}
