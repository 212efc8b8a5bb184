import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOCore
import NIOFileSystem
import NIOHTTP1

/// A stored part's bytes could not be read whole (the body was evicted or replaced meanwhile).
struct StoredPartUnreadable: Error {}

extension ForwardProxy {
    // MARK: - Partial content (docs/SERVING.md, "Partial content")

    /// Answers a request for the whole with the stored part and the 206 that completes it
    /// (``CacheTransaction/PartialRelay``): a 200 of the complete length, its body the stored
    /// bytes before, the new ones, then the stored bytes after, streamed to the client and the
    /// store alike; stored whole, and the part removed, once the body has come. `progress` is
    /// told at each new chunk that it is stored, or once that it is not, as in ``relay(_:request:writer:relay:committing:progress:storesForOthers:)``.
    func relayCompleted(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        relay: CacheTransaction.Relay,
        partial: CacheTransaction.PartialRelay,
        storing: StoringBody?,
        committing: CacheKey?,
        progress: (@Sendable (_ storing: Bool) -> Void)?
    ) async throws -> Outcome {
        guard let joining = partial.joining else { preconditionFailure("a completion joins the stored part") }
        let responseTime = self.configuration.now()
        let upstreamHeaders = HopByHopHeaders.removing(from: response.head.headers)
        let stored = partial.result.storedHead(newest: upstreamHeaders)
        let cacheStatus = relay.cacheStatus(
            upstreamStatus: response.head.status, storing: storing != nil && !self.storeFailures.isFailing, tooLarge: false)
        var headers = HTTPHeaders(stored.headers)
        let close = !request.isKeepAlive
        ProxyAnswerFields.add(to: &headers, via: true, cacheStatus: cacheStatus, close: close)
        try await writer.head(.ok, headers)
        var progress = StoringProgress(progress)
        do {
            try await self.copyStoredBytes(joining.entry, range: joining.combination.before, storing: storing, writer: writer)
            for try await chunk in response.body {
                storing?.write(chunk)
                progress.tell(storing)
                try await writer.body(chunk)
            }
            try await self.copyStoredBytes(joining.entry, range: joining.combination.after, storing: storing, writer: writer)
        } catch {
            // The client must see a broken response (the connection closes); nothing is stored.
            storing?.discard()
            self.logger.notice("completing a stored part failed", metadata: ["url": "\(request.uri)", "error": "\(error)"])
            return Outcome(status: 200, cacheStatus: cacheStatus, reusable: false)
        }
        let commitEnded = self.markCommitting(committing, storing: storing)
        defer { commitEnded() }
        try await writer.end()
        if let storing {
            await self.commitPartial(
                partial, storing: storing, headers: upstreamHeaders, responseTime: responseTime, key: relay.storeAs?.key)
        }
        return Outcome(status: 200, cacheStatus: cacheStatus, reusable: !close)
    }

    /// Stores what a 206 relay wrote (``CacheTransaction/PartialRelay/result``) under `key`, with
    /// the newest response's `headers`; a part made complete is stored whole and its part removed.
    func commitPartial(
        _ partial: CacheTransaction.PartialRelay, storing: StoringBody, headers: [HeaderField], responseTime: Date, key: CacheKey?
    ) async {
        let head = partial.result.storedHead(newest: headers)
        let committed = await storing.commit(
            status: head.status, headers: head.headers, responseTime: responseTime, expectedLength: Int64(partial.result.held.count),
            budget: self.budget, logger: self.logger)
        guard committed, partial.result.isComplete, let key else { return }
        do {
            try await self.store.removeEntry(for: key.partial)
        } catch {
            self.logger.warning("cannot remove a completed part", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    /// Copies the stored part's bytes at `side` of the new ones to the store only (the client
    /// gets the 206 as it came); a part that cannot be read stops the storing.
    func copyStoredPart(
        _ partial: CacheTransaction.PartialRelay?, _ side: KeyPath<PartialContent.Combination, Range<Int64>>, storing: StoringBody?
    ) async {
        guard let joining = partial?.joining, let storing, storing.isStoring else { return }
        do {
            try await self.copyStoredBytes(joining.entry, range: joining.combination[keyPath: side], storing: storing, writer: nil)
        } catch {
            self.logger.notice("cannot join a stored part", metadata: ["key": "\(joining.entry.key)", "error": "\(error)"])
            storing.discard()
        }
    }

    /// Copies `range` of a stored body to the store and, when given, the client; throws
    /// ``StoredPartUnreadable`` when the file cannot be read whole.
    func copyStoredBytes(_ entry: CachedEntry, range: Range<Int64>, storing: StoringBody?, writer: ResponseWriter?) async throws {
        guard !range.isEmpty else { return }
        guard let handle = await self.openBody(entry) else { throw StoredPartUnreadable() }
        var copied: Int64 = 0
        do {
            for try await chunk in handle.readChunks(in: range, chunkLength: .kibibytes(64)) {
                copied += Int64(chunk.readableBytes)
                storing?.write(chunk)
                try await writer?.body(chunk)
            }
        } catch {
            try? await handle.close()
            throw error
        }
        try? await handle.close()
        guard copied == Int64(range.count) else { throw StoredPartUnreadable() }
    }
}
