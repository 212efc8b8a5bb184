import Crypto
import LarderHTTP

import protocol Foundation.ContiguousBytes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams one body to a temporary file while hashing it, then stores it under a key.
///
/// Used by one task at a time, so it is not `Sendable`. If none of ``commit(key:head:kind:expectedLength:revision:expectedHash:)``,
/// ``stage(key:head:expectedLength:revision:expectedHash:)`` and ``discard()`` runs, deinit deletes the temporary file: a failed or cancelled fetch leaves the
/// previous entry for its key as it was.
public final class BodyWriter {
    private let store: Store
    /// The temporary file the body is written to, in the store's `tmp/`.
    public let temporaryPath: String
    private var descriptor: Int32
    private var hasher = SHA256()
    private var isFinished = false
    /// How many body bytes have been written.
    public private(set) var bytesWritten: Int64 = 0

    init(store: Store, temporaryPath: String, descriptor: Int32) {
        self.store = store
        self.temporaryPath = temporaryPath
        self.descriptor = descriptor
    }

    deinit {
        self.discard()
    }

    /// Appends `bytes` to the temporary file (a blocking POSIX write) and to the hash.
    /// A failed write discards the writer, since the file no longer matches the hash.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !self.isFinished else {
            throw StoreError.writerFinished(temporaryPath: self.temporaryPath)
        }
        do {
            try POSIXFile.writeAll(self.descriptor, bytes, path: self.temporaryPath)
        } catch {
            self.discard()
            throw error
        }
        self.hasher.update(bufferPointer: bytes)
        self.bytesWritten += Int64(bytes.count)
    }

    /// Appends `bytes` (an array, `Data`, ...) to the body; see ``write(_:)``.
    public func write(contentsOf bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try self.write($0) }
    }

    /// Stores the body under `key`, replacing any previous entry for that key, and returns the entry.
    ///
    /// The kind is sticky: committing `.runtime` over a `.precached` entry keeps it `.precached` (a
    /// browser fetching a precached page again must not unpin it). `revision` (a Workbox precache
    /// revision) is stored with the entry; a `.runtime` commit without one keeps the entry's revision,
    /// a `.precached` commit without one clears it. The returned entry has the kind and revision stored.
    ///
    /// When `expectedLength` is given and differs from ``bytesWritten``, throws
    /// ``StoreError/lengthMismatch(expected:actual:)``, deletes the temporary file and leaves the index
    /// as it was (``checkLength(_:)``); likewise ``StoreError/hashMismatch(expected:actual:)`` when
    /// `expectedHash` (lower-case hex SHA-256) is given and the bytes hash to another. Otherwise, in the
    /// write transaction of its install batch (the bodies finishing meanwhile), renames the file to
    /// `bodies/xx/<sha256>` (or drops it when that body is stored already), makes the batch's bodies
    /// durable with one barrier, upserts the row, and deletes the previous body of `key` when no row
    /// references it any more.
    public func commit(
        key: CacheKey,
        head: StoredResponseHead,
        kind: EntryKind,
        expectedLength: Int64?,
        revision: String? = nil,
        expectedHash: String? = nil
    ) async throws -> CachedEntry {
        try await self.finish(
            key: key, head: head, kind: kind, expectedLength: expectedLength, revision: revision, expectedHash: expectedHash, staged: false)
    }

    /// Stores the body as staged for `key`: kept (and counted as referenced) but never served, until
    /// ``Store/saveGameVersion(_:files:installing:)`` installs it as a precached entry. A body staged
    /// for `key` before is replaced; the entry for `key`, if any, is left as it is. Checks and
    /// installs as ``commit(key:head:kind:expectedLength:revision:expectedHash:)`` does but without
    /// a barrier: the row says the body is not durable yet, and the version's switch flushes it with
    /// the version's other bodies. Returns the staged body's size.
    public func stage(
        key: CacheKey, head: StoredResponseHead, expectedLength: Int64?, revision: String? = nil, expectedHash: String? = nil
    ) async throws -> Int64 {
        try await self.finish(
            key: key, head: head, kind: .precached, expectedLength: expectedLength, revision: revision, expectedHash: expectedHash,
            staged: true
        ).bodySize
    }

    private func finish(
        key: CacheKey,
        head: StoredResponseHead,
        kind: EntryKind,
        expectedLength: Int64?,
        revision: String?,
        expectedHash: String?,
        staged: Bool
    ) async throws -> CachedEntry {
        let (hash, descriptor) = try self.finishWriting(expectedLength: expectedLength, expectedHash: expectedHash)
        do {
            let entry = try await self.store.install(
                temporaryPath: self.temporaryPath,
                descriptor: descriptor,
                hash: hash,
                size: self.bytesWritten,
                key: key,
                head: head,
                kind: kind,
                revision: revision,
                staged: staged
            )
            self.closeAfterInstall(succeeded: true)
            return entry
        } catch {
            self.closeAfterInstall(succeeded: false)
            throw error
        }
    }

    /// Ends writing: checks the length and hash as ``commit(key:head:kind:expectedLength:revision:expectedHash:)``
    /// says (discarding the body when either is wrong), and returns the body's hash and its
    /// temporary file's descriptor, which stays open (and locked) for the install batch until
    /// ``closeAfterInstall(succeeded:)``.
    func finishWriting(expectedLength: Int64?, expectedHash: String?) throws -> (hash: String, descriptor: Int32) {
        try self.checkLength(expectedLength)
        let hash = LowercaseHex.string(Array(self.hasher.finalize()))
        if let expectedHash, expectedHash != hash {
            self.discard()
            throw StoreError.hashMismatch(expected: expectedHash, actual: hash)
        }
        self.isFinished = true
        return (hash, self.descriptor)
    }

    /// After the install batch: closes the temporary file, and when the install failed, removes
    /// it (gone already when the failure came after the rename; then the stored body is an orphan).
    func closeAfterInstall(succeeded: Bool) {
        self.closeDescriptor()
        if !succeeded {
            self.removeTemporaryFile()
        }
    }

    /// Throws ``StoreError/lengthMismatch(expected:actual:)``, and discards the body, when
    /// `expectedLength` is given and differs from ``bytesWritten``: the check a commit makes first,
    /// for a caller that wants to know before it hands the body over.
    public func checkLength(_ expectedLength: Int64?) throws {
        guard !self.isFinished else {
            throw StoreError.writerFinished(temporaryPath: self.temporaryPath)
        }
        if let expectedLength, expectedLength != self.bytesWritten {
            self.discard()
            throw StoreError.lengthMismatch(expected: expectedLength, actual: self.bytesWritten)
        }
    }

    /// Deletes the temporary file; the index is not touched. Does nothing after a commit or discard.
    public func discard() {
        guard !self.isFinished else {
            return
        }
        self.isFinished = true
        self.closeDescriptor()
        self.removeTemporaryFile()
    }

    private func closeDescriptor() {
        if self.descriptor >= 0 {
            close(self.descriptor)
            self.descriptor = -1
        }
    }

    private func removeTemporaryFile() {
        do {
            try POSIXFile.removeFile(self.temporaryPath)
        } catch {
            self.store.logger.warning("Cannot delete a temporary body", metadata: ["error": "\(error)"])
        }
    }
}
