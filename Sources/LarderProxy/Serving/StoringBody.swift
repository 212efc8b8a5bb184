import Foundation
import LarderHTTP
import LarderStore
import Logging
import NIOCore

/// An upstream body on its way into the store, for every path that stores one (a relay to a
/// client, an answer absorbed in the background): chunks go to a ``BodyWriter`` as they arrive, a
/// write failure stops storing (the answer itself goes on), and `commit` indexes the whole body.
/// Failures are counted in ``StoreWriteFailures`` for the log and /dev/offline. A body that grows
/// past the budget's per-entry limit (``StoreBudget/entryLimit``) stops being stored before the
/// byte that would pass it is written: its temporary file goes, and the answer goes on. A body
/// small enough for the ``SmallBodyCache`` is kept there once committed, so the next hit on it is
/// answered at once from memory rather than by the ordinary path reading its file (a page's
/// second visit, right after its first stored the files, read each one).
final class StoringBody {
    private var writer: BodyWriter?
    private let smallBodies: SmallBodyCache?
    /// The bytes so far, while they fit in `smallBodies`.
    private var kept: ByteBuffer?
    private let target: CacheTransaction.StoreTarget
    private let failures: StoreWriteFailures
    private let entryLimit: Int64?
    private let logger: Logger

    /// Starts storing for `target`; nil when `declaredLength` (the `Content-Length`) is over the
    /// budget's per-entry limit (logged) or no body file can be made (the failure is recorded).
    init?(
        store: Store, target: CacheTransaction.StoreTarget, failures: StoreWriteFailures, budget: StoreBudget, declaredLength: Int64?,
        smallBodies: SmallBodyCache? = nil, logger: Logger
    ) {
        if budget.isOverEntryLimit(declaredLength) {
            Self.logTooLarge(url: target.url, length: "\(declaredLength ?? 0)", limit: budget.entryLimit, logger: logger)
            return nil
        }
        do {
            self.writer = try store.makeBodyWriter()
        } catch {
            failures.record(error, url: target.url.absoluteString)
            return nil
        }
        self.target = target
        self.failures = failures
        self.entryLimit = budget.entryLimit
        self.logger = logger
        self.smallBodies = smallBodies
        if let smallBodies, (declaredLength ?? 0) <= smallBodies.maximumBodySize {
            self.kept = ByteBuffer()
        }
    }

    private static func logTooLarge(url: HTTPURL, length: String, limit: Int64?, logger: Logger) {
        logger.notice(
            "not stored: the body is over the per-entry limit (half of --max-size)",
            metadata: ["url": "\(url.absoluteString)", "length": "\(length)", "limit": "\(limit ?? 0)"]
        )
    }

    /// Whether the body is still being stored.
    var isStoring: Bool {
        self.writer != nil
    }

    /// Appends a chunk; after a write failure, or when the chunk would take the body past the
    /// per-entry limit, stops storing.
    func write(_ chunk: ByteBuffer) {
        guard let writer = self.writer else { return }
        if let limit = self.entryLimit, writer.bytesWritten + Int64(chunk.readableBytes) > limit {
            Self.logTooLarge(url: self.target.url, length: "more than \(limit)", limit: limit, logger: self.logger)
            writer.discard()
            self.writer = nil
            return
        }
        if let limit = self.smallBodies?.maximumBodySize, let keptBytes = self.kept?.readableBytes {
            if Int64(keptBytes + chunk.readableBytes) <= limit {
                self.kept?.writeImmutableBuffer(chunk)
            } else {
                self.kept = nil
            }
        }
        do {
            try chunk.withUnsafeReadableBytes { try writer.write($0) }
        } catch {
            self.failures.record(error, url: self.target.url.absoluteString)
            writer.discard()
            self.writer = nil
        }
    }

    /// Drops what was written: the body was cut short or failed.
    func discard() {
        self.writer?.discard()
        self.writer = nil
        self.kept = nil
    }

    /// Indexes the body under the target's key with `headers` (hop-by-hop ones already removed);
    /// a body whose length is not `expectedLength` is not stored. Returns whether it was.
    func commit(status: Int, headers: [HeaderField], responseTime: Date, expectedLength: Int64?, budget: StoreBudget, logger: Logger) async
        -> Bool
    {
        guard let writer = self.writer else { return false }
        self.writer = nil
        let head = StoredResponseHead(
            url: self.target.url.absoluteString,
            status: status,
            headers: headers,
            requestTime: self.target.requestTime,
            responseTime: responseTime,
            varyRequestHeaders: self.target.varyValues
        )
        do {
            let entry = try await writer.commit(key: self.target.key, head: head, kind: .runtime, expectedLength: expectedLength)
            if let kept = self.kept, Int64(kept.readableBytes) == entry.bodySize {
                self.smallBodies?.insert(kept, hash: entry.bodyHash)
            }
            self.kept = nil
            self.failures.recordSuccess()
            budget.requestEviction()
            return true
        } catch StoreError.heldByCompleteVersion {
            // The answer reached its client; offline, the game's complete version keeps answering.
            logger.debug(
                "not stored: a file of a complete game version", metadata: ["url": "\(self.target.url.absoluteString)"])
            self.failures.recordSuccess()
        } catch StoreError.lengthMismatch(let expected, let actual) {
            logger.notice(
                "not stored: the body was cut short",
                metadata: ["url": "\(self.target.url.absoluteString)", "expected": "\(expected)", "actual": "\(actual)"]
            )
        } catch {
            self.failures.record(error, url: self.target.url.absoluteString)
        }
        return false
    }
}
