import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOCore
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Relaying an upstream response

    /// Streams an upstream response to the client, storing it on the way when the relay says so;
    /// requests for `committing` (the key looked up) that come between the client's last byte
    /// and the commit wait for it (``CommittingAnswers``). `progress` is told, once the head is
    /// out and at each body chunk, that the answer is still being stored, or once that it is not
    /// (the followers of a fetch this request leads wait while it is). When the client goes away and
    /// `storesForOthers` says other requests wait for this answer, the body is still read and
    /// stored for them, for as long as it is stored and they wait.
    func relay(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        relay: CacheTransaction.Relay,
        committing: CacheKey? = nil,
        progress: (@Sendable (_ storing: Bool) -> Void)? = nil,
        storesForOthers: (@Sendable () -> Bool)? = nil
    ) async throws -> Outcome {
        let responseTime = self.configuration.now()
        let upstreamHeaders = HopByHopHeaders.removing(from: response.head.headers)
        self.learnCORSGrant(status: response.head.status, from: upstreamHeaders, request: request)
        let declaredLength = upstreamHeaders.contentLength

        let storing = relay.storeAs.flatMap {
            StoringBody(
                store: self.store, target: $0, failures: self.storeFailures, budget: self.budget, declaredLength: declaredLength,
                smallBodies: self.smallBodies, logger: self.logger)
        }
        if let partial = relay.partial, partial.whole {
            return try await self.relayCompleted(
                response, request: request, writer: writer, relay: relay, partial: partial, storing: storing, committing: committing,
                progress: progress)
        }
        let cacheStatus = relay.cacheStatus(
            upstreamStatus: response.head.status, storing: storing != nil && !self.storeFailures.isFailing,
            tooLarge: self.budget.isOverEntryLimit(declaredLength))

        let plan = RelayPlan(
            status: response.head.status, headers: upstreamHeaders, request: StoredAnswer.Request(head: request),
            isGet: request.method == .GET)
        var headers = HTTPHeaders(plan.headers)
        ProxyAnswerFields.add(to: &headers, via: true, cacheStatus: cacheStatus, close: plan.close)
        /// The client's write error once it has gone while others wait for the answer being
        /// stored: nothing more is written to it, and the body goes on into the store.
        var clientGone: (any Error)?
        /// Whether the body still goes on for others once the client has gone.
        func storesForOthersNow() -> Bool {
            storing?.isStoring == true && storesForOthers?() == true
        }
        func send(_ write: () async throws -> Void) async throws {
            guard clientGone == nil else { return }
            do {
                try await write()
            } catch {
                guard storesForOthersNow() else { throw error }
                clientGone = error
            }
        }
        if plan.body == .unsatisfiable {
            // The client's answer is complete at once; the body is still read to be stored.
            try await writer.whole(.rangeNotSatisfiable, headers, body: nil)
        } else if plan.status == response.head.status {
            try await send {
                try await writer.head(HTTPResponseStatus(statusCode: plan.status, reasonPhrase: response.head.reason), headers)
            }
        } else {
            try await send { try await writer.head(HTTPResponseStatus(statusCode: plan.status), headers) }
        }
        var progress = StoringProgress(progress)
        progress.tell(storing)
        let decoder: ContentDecoder? =
            if case .decoded(let coding) = plan.body { ContentDecoder(coding: coding) } else { nil }

        var position: Int64 = 0
        do {
            // A 206 joining the stored part: its bytes before the new ones go first.
            await self.copyStoredPart(relay.partial, \.before, storing: storing)
            for try await chunk in response.body {
                storing?.write(chunk)
                progress.tell(storing)
                let chunkStart = position
                position += Int64(chunk.readableBytes)
                if let gone = clientGone {
                    // Read on only while the body is stored and someone waits for it.
                    guard storesForOthersNow() else { throw gone }
                    continue
                }
                switch plan.body {
                case .none, .unsatisfiable:
                    continue
                case .decoded:
                    decoder?.feed(chunk)
                    while let piece = try decoder?.next() {
                        try await send { try await writer.body(piece) }
                    }
                case .range(let slice):
                    let lower = max(chunkStart, slice.lowerBound)
                    let upper = min(position, slice.upperBound)
                    if lower < upper, let part = chunk.getSlice(at: chunk.readerIndex + Int(lower - chunkStart), length: Int(upper - lower))
                    {
                        try await send { try await writer.body(part) }
                    }
                case .whole:
                    try await send { try await writer.body(chunk) }
                }
            }
            if clientGone == nil {
                try decoder?.finish()
            }
            await self.copyStoredPart(relay.partial, \.after, storing: storing)
        } catch {
            // A truncated or failed upstream body (or one that does not decode): the client must
            // see a broken response (the connection closes), and nothing of it is stored.
            storing?.discard()
            self.logger.notice("upstream body failed", metadata: ["url": "\(request.uri)", "error": "\(error)"])
            return Outcome(status: response.head.status, cacheStatus: cacheStatus, reusable: false)
        }
        let commitEnded = self.markCommitting(committing, storing: storing)
        defer { commitEnded() }
        if plan.body != .unsatisfiable, clientGone == nil {
            try await writer.end()
        }

        if let storing {
            if let partial = relay.partial {
                await self.commitPartial(
                    partial, storing: storing, headers: upstreamHeaders, responseTime: responseTime, key: relay.storeAs?.key)
            } else {
                _ = await storing.commit(
                    status: response.head.status,
                    headers: upstreamHeaders,
                    responseTime: responseTime,
                    expectedLength: declaredLength,
                    budget: self.budget,
                    logger: self.logger
                )
            }
        }
        return Outcome(status: plan.status, cacheStatus: cacheStatus, reusable: !plan.close && clientGone == nil)
    }

    /// Tells the followers of a fetch, as its body comes, that it is being stored, or once that it
    /// is not (they are then let go).
    struct StoringProgress {
        private var report: (@Sendable (_ storing: Bool) -> Void)?

        init(_ report: (@Sendable (_ storing: Bool) -> Void)?) {
            self.report = report
        }

        mutating func tell(_ storing: StoringBody?) {
            let stored = storing?.isStoring == true
            self.report?(stored)
            if !stored {
                self.report = nil
            }
        }
    }

    /// Marks `key` as being committed when a body is being stored for it (``CommittingAnswers``),
    /// from just before the client's last byte; returns what ends the mark.
    func markCommitting(_ key: CacheKey?, storing: StoringBody?) -> () -> Void {
        guard let key, storing?.isStoring == true, let flight = self.committing.begin(key) else { return {} }
        return { self.committing.end(key, flight: flight) }
    }
}
