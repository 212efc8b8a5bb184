import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOCore
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Writes a queue rule covers

    /// Serves a write that `rule` covers (docs/SERVING.md, "Queued writes"), its body read whole:
    /// sends it when the origin may answer and relays the answer, else keeps it in the store (synced)
    /// and only then tells the client it is queued. The headers, `Idempotency-Key` included, are
    /// fixed before the first attempt, so every replay of a write the origin may have seen carries
    /// the same key. A write from a page of another site (``WriteSource``) is forwarded as any
    /// other write, never queued, so it can neither be kept nor replace the user's own. A queued
    /// write is kept with its owner (`client` and its credentials, ``AnswerOwner``): it replaces
    /// only that owner's pending writes.
    func serveQueueable(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        client: AnswerOwner.Client,
        body: ByteBuffer,
        rule: WriteQueueRule,
        writer: ResponseWriter
    ) async throws -> Outcome {
        let source = WriteSource(url: url, request: head.headers, pageOrigins: rule.pageOrigins)
        guard source.mayQueue else {
            self.logger.notice(
                "write not queued: it comes from a page of another site",
                metadata: [
                    "url": "\(url.absoluteString)", "origin": "\(head.headers.first(name: "origin") ?? "-")",
                    "sec-fetch-site": "\(head.headers.first(name: "sec-fetch-site") ?? "-")",
                ])
            return try await self.serveUncacheable(
                head, url: url, client: client, body: body.readableBytes > 0 ? .bytes(body) : nil, writer: writer,
                detail: "write-not-queued-cross-site")
        }
        let headers = QueuedWriteHeaders(head.headers)
        let owner = AnswerOwner(client: client, request: head.headers, url: url)
        let origin = url.origin
        let originHasPending: Bool
        do {
            originHasPending = try await self.store.pendingWriteOrigins().contains(origin)
        } catch {
            // The write could not be queued either: the store's answer below says so.
            originHasPending = false
            self.logger.warning("cannot read the write queue", metadata: ["error": "\(error)"])
        }
        let queueAtOnce = WriteQueueDecision.queuesAtOnce(
            offline: self.offline.isOffline,
            backingOff: !self.health.shouldAttempt(origin: origin),
            originHasPending: originHasPending
        )
        if queueAtOnce {
            return try await self.queueWrite(head, url: url, headers: headers, body: body, rule: rule, owner: owner, writer: writer)
        }
        var request = UpstreamRequest(method: head.method.wireName, url: url.absoluteString, headers: headers.fields, body: .bytes(body))
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        request.reach = self.reach(for: client)
        let response: UpstreamResponse?
        do {
            response = try await self.attemptWrite(request)
        } catch {
            // Refused before it was sent (the box's own address, from another machine): not queued.
            return try await self.refuseForbiddenAddress(error, head: head, writer: writer, close: false)
        }
        let attempt: WriteQueueDecision.Attempt = response.map { .answered(status: $0.head.status) } ?? .unanswered
        guard let response, !WriteQueueDecision.queues(after: attempt, queueOn5xx: rule.queueOn5xx) else {
            return try await self.queueWrite(head, url: url, headers: headers, body: body, rule: rule, owner: owner, writer: writer)
        }
        await self.invalidator.invalidate(after: response.head, url: url)
        return try await self.relay(
            response, request: head, writer: writer,
            relay: CacheTransaction.Relay(forwardReason: .method, storeAs: nil, notStoredReason: nil))
    }

    /// Sends a write and waits for the response head at most the network timeout; nil when none
    /// came (the attempt is then cancelled: the write is queued and replayed with the same key).
    private func attemptWrite(_ request: UpstreamRequest) async throws(UpstreamError) -> UpstreamResponse? {
        let upstream = self.upstream
        let timeout = self.configuration.networkTimeout
        let result = await withTaskGroup(of: Result<UpstreamResponse?, UpstreamError>.self) { group in
            group.addTask {
                do {
                    return .success(try await upstream.execute(request))
                } catch let error as UpstreamError where error.kind == .forbiddenAddress {
                    // Never sendable as it is: not a failure to reach the origin, and not queued.
                    return .failure(error)
                } catch {
                    return .success(nil)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .success(nil)
            }
            let first = await group.next() ?? .success(nil)
            group.cancelAll()
            return first
        }
        return try result.get()
    }

    /// Keeps the write in the store (body synced, then the row, with `owner`) and answers the client with the
    /// rule's answer; when the store cannot keep it, a 503 says so: a 2xx would be a lie.
    private func queueWrite(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        headers: QueuedWriteHeaders,
        body: ByteBuffer,
        rule: WriteQueueRule,
        owner: AnswerOwner,
        writer: ResponseWriter
    ) async throws -> Outcome {
        let bytes = Array(body.readableBytesView)
        let cacheStatus = CacheStatus.forward(.method, detail: "queued")
        let write = NewQueuedWrite(
            origin: url.origin,
            method: head.method.wireName,
            url: url.absoluteString,
            headers: headers.fields,
            body: bytes,
            supersedeKey: rule.storedSupersedeKey(
                url: url, headers: headers.fields, body: bytes, owner: owner, filter: self.configuration.queryFilter),
            terminal: rule.terminal,
            owner: owner.digest,
            createdAt: self.configuration.now()
        )
        let queued: QueuedWrite
        do {
            let (stored, superseded) = try await self.store.enqueueWrite(write, limits: self.configuration.writeQueue.limits)
            queued = stored
            self.logger.notice(
                "write queued",
                metadata: ["id": "\(stored.id)", "method": "\(stored.method)", "url": "\(stored.url)", "superseded": "\(superseded)"])
        } catch WriteQueueError.full(let exceeded) {
            self.logger.warning("write not queued", metadata: ["url": "\(url.absoluteString)", "reason": "\(exceeded)"])
            return try await self.notKept(
                head, url: url, title: "Write queue full", reason: "\(exceeded)",
                advice:
                    "The write was not kept; the writes already queued are. Send it again once they are delivered, or drop some at /dev/offline.",
                cacheStatus: CacheStatus.forward(.method, detail: "queue-full"), writer: writer)
        } catch {
            self.logger.error("cannot queue a write", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            return try await self.notKept(
                head, url: url, title: "Write not kept", reason: "\(error)", advice: "The write was not kept; send it again.",
                cacheStatus: cacheStatus, writer: writer)
        }
        let answerBody = rule.answer.bodyBytes(id: queued.id)
        var answer = HTTPHeaders()
        if !answerBody.isEmpty {
            answer.add(name: "Content-Type", value: rule.answer.contentType)
        }
        answer.add(name: "Cache-Control", value: "no-store")
        answer.add(name: "Larder-Queued", value: String(queued.id))
        ProxyAnswerFields.add(to: &answer, via: false, cacheStatus: cacheStatus)
        for field in await self.corsFieldsInOriginsPlace(head, url: url) {
            answer.add(name: field.name, value: field.value)
        }
        // A 204 has no framing at all (RFC 9110 section 8.6); every other answer says its length.
        if rule.answer.status != 204 {
            answer.add(name: "Content-Length", value: String(answerBody.count))
        }
        try await writer.whole(HTTPResponseStatus(statusCode: rule.answer.status), answer, body: ByteBuffer(bytes: answerBody))
        return Outcome(status: rule.answer.status, cacheStatus: cacheStatus, reusable: true)
    }

    /// The `503` for a write the store did not keep (a 2xx would be a lie): `reason` says why,
    /// `advice` what the user can do.
    private func notKept(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        title: String,
        reason: String,
        advice: String,
        cacheStatus: CacheStatus,
        writer: ResponseWriter
    ) async throws -> Outcome {
        let page = StatusPage(
            status: .serviceUnavailable,
            title: title,
            paragraphs: [
                "The origin could not take this \(head.method.wireName), and Larder could not keep it to send later: \(reason).", advice,
            ],
            url: url.absoluteString
        )
        try await writer.page(
            page, cacheStatus: cacheStatus, close: false, isHead: head.method == .HEAD,
            extraHeaders: await self.corsFieldsInOriginsPlace(head, url: url))
        return Outcome(status: 503, cacheStatus: cacheStatus, reusable: true)
    }
}
