import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Replays queued writes while the proxy runs (docs/SERVING.md, "Queued writes"): each origin's
/// strictly in the order they arrived, one at a time, origins independently. It looks at the queue
/// at start-up, then once a second (sooner when an origin's back-off ends): an origin whose head
/// failed waits ``WriteReplayTimetable``'s back-off, unless it was seen answering since (connectivity
/// returned) or retry-now was asked. Nothing is sent in offline mode. Each look also dead-letters
/// the writes older than the retention.
public final class WriteReplayer: Service, Sendable {
    private let store: Store
    /// Sends the replays (their outcomes counted for back-off).
    private let upstream: any Upstream
    /// The queue's settings, the upstream timeouts and the clock.
    private let configuration: ProxyConfiguration
    private let offline: OfflineSwitch
    /// Whose answers since a failure end that origin's back-off.
    private let health: UpstreamHealthRegistry
    private let invalidator: CacheInvalidator
    private let timetable: Mutex<WriteReplayTimetable>
    /// Writes to replay at the next look, whatever their origin's back-off (``retryNow(id:)``).
    private let retries = Mutex<Set<Int64>>([])
    private let logger: Logger
    /// Counts replay outcomes for /metrics.
    private let metrics: ProxyMetrics?

    init(
        store: Store,
        upstream: any Upstream,
        configuration: ProxyConfiguration,
        offline: OfflineSwitch,
        health: UpstreamHealthRegistry,
        invalidator: CacheInvalidator,
        metrics: ProxyMetrics? = nil,
        logger: Logger
    ) {
        self.store = store
        self.upstream = upstream
        self.configuration = configuration
        self.offline = offline
        self.health = health
        self.invalidator = invalidator
        self.metrics = metrics
        self.timetable = Mutex(WriteReplayTimetable(backoff: configuration.writeQueue.backoff))
        self.logger = logger
    }

    /// How much the queue keeps (the config's `queue.maxWrites` and `queue.maxBytes`), for the reports.
    public var limits: WriteQueueLimits {
        self.configuration.writeQueue.limits
    }

    /// Where each origin with a failing head stands (an origin absent is replayed at the next look).
    public func snapshot() -> [String: OriginReplayState] {
        self.timetable.withLock { $0.states }
    }

    /// Replays the write `id` at the next look (within a second), ending its origin's back-off; a
    /// dead-lettered write is pending again first (its attempts kept). An unknown id is ignored.
    public func retryNow(id: Int64) {
        _ = self.retries.withLock { $0.insert(id) }
    }

    /// Replays until shutdown; a replay under way is then cancelled (its write stays queued).
    public func run() async {
        do {
            // A crash during a replay left its write marked in flight: it is pending again.
            try await self.store.resetInFlightWrites()
        } catch {
            self.logger.error("cannot reset queued writes left in flight", metadata: ["error": "\(error)"])
        }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    for origin in await self.look(now: self.configuration.now()) {
                        group.addTask { await self.drain(origin) }
                    }
                    let now = self.configuration.now()
                    let second = now.addingTimeInterval(1)
                    let wake = min(second, self.timetable.withLock { $0.earliestAttempt(after: now) } ?? second)
                    try? await Task.sleep(for: .seconds(max(wake.timeIntervalSince(now), 0.01)))
                }
            }
        }
    }

    /// Expires what outlived the retention, then takes the origins due for a drain.
    private func look(now: Date) async -> [String] {
        let store = self.store
        do {
            // One indexed read a second while nothing is queued: the expiry is a write, and only
            // pending writes expire.
            var pending = try await store.pendingWriteOrigins()
            if !pending.isEmpty {
                let retention = self.configuration.writeQueue.retention.seconds
                let expired = try await store.expireWrites(createdBefore: now.addingTimeInterval(-retention))
                if expired > 0 {
                    self.logger.warning("queued writes expired (dead-lettered)", metadata: ["count": "\(expired)"])
                    pending = try await store.pendingWriteOrigins()
                }
            }
            // After the expiry: a write retried by hand gets its attempt even past the retention.
            if try await self.takeRetries() {
                pending = try await store.pendingWriteOrigins()
            }
            guard !self.offline.isOffline, !pending.isEmpty else { return [] }
            let health = self.health.snapshot()
            return self.timetable.withLock { timetable in
                timetable.takeDue(pending, now: now) { origin, since in
                    health[origin]?.lastSuccess.map { $0 > since } ?? false
                }
            }
        } catch is CancellationError {
            // A shutdown, not a failure: the writes stay queued for the next start.
            return []
        } catch {
            self.logger.error("cannot read the write queue", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Makes the writes asked to be retried pending, and ends their origins' back-off; whether
    /// any was asked for.
    private func takeRetries() async throws -> Bool {
        let ids = self.retries.withLock { ids in
            defer { ids.removeAll() }
            return ids
        }
        guard !ids.isEmpty else { return false }
        for id in ids.sorted() {
            guard let write = try await self.store.queuedWrite(id: id) else { continue }
            if write.state == .deadLetter {
                _ = try await self.store.retryWrite(id: id)
            }
            self.timetable.withLock { $0.retryNow(write.origin) }
        }
        return true
    }

    /// Replays `origin`'s writes in order until its queue is empty, its head fails, or the proxy goes offline.
    private func drain(_ origin: String) async {
        defer { self.timetable.withLock { $0.finished(origin) } }
        while !Task.isCancelled, !self.offline.isOffline {
            do {
                guard let write = try await self.store.nextPendingWrite(origin: origin) else { return }
                guard try await self.replay(write) else { return }
            } catch is CancellationError {
                return
            } catch {
                self.logger.error("cannot replay a queued write", metadata: ["origin": "\(origin)", "error": "\(error)"])
                self.timetable.withLock { $0.failed(origin, error: "\(error)", now: self.configuration.now()) }
                return
            }
        }
    }

    /// Sends `write` once and records what its answer means; false when its origin must wait.
    private func replay(_ write: QueuedWrite) async throws -> Bool {
        let store = self.store
        // A claim persisted before sending: a crash from here on leaves the write pending with
        // this attempt counted; a write superseded, dropped or expired since it was read is skipped.
        guard try await store.beginDelivery(id: write.id, at: self.configuration.now()) else { return true }
        let body: [UInt8]
        do {
            body = try await store.writeBody(write)
        } catch {
            try await store.deadLetterWrite(id: write.id, reason: "its body cannot be read: \(error)")
            return true
        }
        let (verdict, response) = await self.send(write, body: body)
        self.metrics?.recordReplay(verdict)
        // What the origin said is recorded even when shutdown began meanwhile: a delivered write
        // left pending would be sent again at the next start.
        return try await Task {
            try await self.settle(write, verdict: verdict, response: response)
        }.value
    }

    /// Records what the answer to `write` means; false when its origin must wait.
    private func settle(_ write: QueuedWrite, verdict: ReplayVerdict, response: UpstreamResponse?) async throws -> Bool {
        let store = self.store
        switch verdict {
        case .delivered:
            // The duplicate window (docs/SERVING.md): from the origin's answer until this commit.
            try await store.completeWrite(id: write.id)
            self.timetable.withLock { $0.answered(write.origin) }
            if let response, let url = try? HTTPURL(parsing: write.url) {
                await self.invalidator.invalidate(after: response.head, url: url)
            }
            self.logger.notice("queued write delivered", metadata: ["id": "\(write.id)", "url": "\(write.url)"])
            return true
        case .deadLetter(let reason):
            try await store.deadLetterWrite(id: write.id, reason: reason)
            self.timetable.withLock { $0.answered(write.origin) }
            self.logger.warning("queued write dead-lettered", metadata: ["id": "\(write.id)", "reason": "\(reason)"])
            return true
        case .retry(let reason):
            try await store.recordFailedDelivery(id: write.id, error: reason)
            self.timetable.withLock { $0.failed(write.origin, error: reason, now: self.configuration.now(), unreachable: response == nil) }
            self.logger.info("queued write not delivered yet", metadata: ["id": "\(write.id)", "reason": "\(reason)"])
            return false
        }
    }

    /// Sends `write` with `body` through the proxy's upstream and reads the whole answer.
    private func send(_ write: QueuedWrite, body: [UInt8]) async -> (ReplayVerdict, UpstreamResponse?) {
        var request = UpstreamRequest(
            method: write.method,
            url: write.url,
            headers: write.headers,
            body: body.isEmpty ? nil : .bytes(ByteBuffer(bytes: body))
        )
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        // A write a client on another machine queued reaches no more than that client could.
        request.reach = AnswerOwner.isRemote(write.owner) ? self.configuration.lanReach : nil
        let response: UpstreamResponse
        do {
            response = try await self.upstream.execute(request)
        } catch let error as UpstreamError where error.kind == .forbiddenAddress {
            // Never sendable as it is (a client on another machine's write to the box's own
            // address, say): kept and shown, not retried without end.
            return (.deadLetter(error.description), nil)
        } catch {
            return (ReplayVerdict.networkError("\(error)"), nil)
        }
        // The status is the origin's verdict; its body is read and dropped so the transfer ends
        // before the write is settled, and a body cut short changes nothing.
        do {
            for try await _ in response.body {}
        } catch {
            self.logger.debug("a replay's answer ended early", metadata: ["id": "\(write.id)", "error": "\(error)"])
        }
        return (ReplayVerdict.classify(status: response.head.status), response)
    }
}
