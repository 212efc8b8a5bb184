import AsyncAlgorithms
import AsyncHTTPClient
import LarderHTTP
import LarderUpstream
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// One ``NIOUpstream`` request: an AsyncHTTPClient request run in a task of its own, which hands
/// the head to ``Upstream/execute(_:)``'s caller and then moves the body, chunk by chunk, into the
/// caller's ``UpstreamBody`` at the pace the caller reads.
///
/// The task owns the AsyncHTTPClient request, so the transfer can be cancelled from anywhere (the
/// caller's task, the dropped body, the watchdog, shutdown) by cancelling that task, which makes
/// AsyncHTTPClient close the connection.
final class NIOTransfer: Sendable {
    /// Why a transfer is cancelled.
    enum CancelReason: Sendable {
        /// The task awaiting the response head was cancelled.
        case taskCancelled
        /// The response body (or its iterator) was dropped before its end.
        case consumerGone
        /// The client shut down.
        case shutdown
        /// No byte moved for the idle timeout while the body's consumer was waiting.
        case idleTimeout
        /// The total timeout passed.
        case totalTimeout
    }

    /// Settings from the client's configuration that every transfer applies.
    struct Settings: Sendable {
        /// The `User-Agent` for requests without one.
        var userAgent: String?
        /// Which requests go through a parent proxy.
        var proxy: UpstreamProxy
    }

    typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer,
        any Error,
        NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark,
        NIOBodyDemand
    >

    /// Body chunks buffered for the consumer before the transfer stops reading from
    /// AsyncHTTPClient (which then stops reading the socket), as curl's transfer does.
    private static let bodyBackPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
        lowWatermark: 2,
        highWatermark: 8
    )
    /// Request header fields the client derives itself rather than taking from the caller.
    private static let framingHeaderNames: Set<String> = ["content-length", "transfer-encoding", "expect"]
    /// A streamed request body up to this size is kept to be sent again, as curl's transfer keeps it.
    private static let requestBodyReplayLimit = 64 * 1024

    private struct State {
        var cancelReason: CancelReason?
        var task: Task<Void, Never>?
        var headContinuation: CheckedContinuation<UpstreamResponse, any Error>?
        var headWasDelivered = false
        var bodyBytesDelivered: Int64 = 0
        var declaredBodyLength: Int64?
        /// When the transfer times out unless a byte moves first.
        var idleDeadline: NIODeadline
        /// The watchdog's next check, cancelled when the transfer ends: it holds the transfer,
        /// which would otherwise stay in memory until the check fires (up to the timeouts). A
        /// scheduled callback rather than a scheduled task: cancelling it involves no promise, so
        /// a transfer that ends as the event loop shuts down leaves none unfulfilled.
        var watchdog: NIOScheduledCallback?
        /// Whether the body's consumer has all it asked for, so that time does not count as idle.
        var waitingForConsumer = false
        /// What the request body stream threw.
        var requestBodyFailure: String?
        /// A copy of the streamed request body while it is within ``requestBodyReplayLimit``, to
        /// send again (nil past it), and whether the stream has ended.
        var replayBody: ByteBuffer? = ByteBuffer()
        var replayBodyIsWhole = false
        /// Whether the transfer holds one of ``slots``, which it gives back when it ends.
        var holdsSlot = false
        var ended = false
    }

    let request: UpstreamRequest
    /// The parent proxy this request goes through; nil: straight to the origin.
    let parent: ProxyEndpoint?
    /// For a plain `http://` request through a parent: the URL it is sent to (the parent's
    /// address and the request's target) and the origin's `Host`; nil otherwise.
    let forwardedTo: (url: String, host: String)?
    private let host: String
    private let port: Int
    private let settings: Settings
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let totalDeadline: NIODeadline?
    /// What admits the transfer to its host within the connection limits.
    private let slots: NIOConnectionSlots
    /// The origin (scheme, host and port) the slots count.
    private let origin: String
    /// Called once when the transfer ends.
    private let onEnd: @Sendable (NIOTransfer) -> Void
    private let state: Mutex<State>

    /// A transfer of `request`, whose timeouts run on `eventLoop`; `onEnd` is called when it ends.
    init(
        request: UpstreamRequest, settings: Settings, slots: NIOConnectionSlots, eventLoop: any EventLoop, logger: Logger,
        onEnd: @escaping @Sendable (NIOTransfer) -> Void
    ) {
        let url = try? HTTPURL(parsing: request.url)
        let scheme = url?.scheme ?? "http"
        self.request = request
        self.host = url?.host ?? ""
        self.port = url?.port ?? (scheme == "https" ? 443 : 80)
        self.parent = settings.proxy.endpoint(scheme: scheme, host: self.host)
        if let parent = self.parent, scheme == "http", let url {
            self.forwardedTo = ("http://\(HTTPURL.bracketed(host: parent.host)):\(parent.port)\(url.requestTarget)", url.authority)
        } else {
            self.forwardedTo = nil
        }
        self.settings = settings
        self.eventLoop = eventLoop
        self.logger = logger
        self.onEnd = onEnd
        self.slots = slots
        self.origin = "\(scheme)://\(HTTPURL.bracketed(host: self.host)):\(self.port)"
        let now = NIODeadline.now()
        self.totalDeadline = request.totalTimeout.map { now + TimeAmount($0) }
        // Before the head, the connection is AsyncHTTPClient's to time (its connect timeout): the
        // idle clock starts once that has passed, or when the first request body byte moves.
        self.state = Mutex(State(idleDeadline: now + TimeAmount(request.connectTimeout) + TimeAmount(request.idleTimeout)))
    }

    /// Runs the transfer on `client` and returns its response once the head has arrived.
    func run(on client: HTTPClient) async throws -> UpstreamResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let refused = self.state.withLock { state -> CancelReason? in
                    if let reason = state.cancelReason {
                        state.ended = true
                        return reason
                    }
                    state.headContinuation = continuation
                    state.task = Task { await self.transfer(on: client) }
                    return nil
                }
                if let refused {
                    self.onEnd(self)
                    continuation.resume(throwing: self.cancellationError(refused, headWasDelivered: false))
                } else {
                    self.watch(until: self.state.withLock { $0.idleDeadline })
                }
            }
        } onCancel: {
            self.cancel(.taskCancelled)
        }
    }

    /// Cancels the transfer for `reason`, unless it has ended or was cancelled already.
    func cancel(_ reason: CancelReason) {
        let task = self.state.withLock { state -> Task<Void, Never>? in
            guard state.cancelReason == nil, !state.ended else { return nil }
            state.cancelReason = reason
            return state.task
        }
        task?.cancel()
    }

    // MARK: The transfer's task

    private func transfer(on client: HTTPClient) async {
        var source: Producer.Source?
        var requestBodyPump: Task<Void, Never>?
        defer { requestBodyPump?.cancel() }
        do {
            if let reach = self.request.reach, self.parent == nil,
                await reach.resolvesToForbiddenAddress(host: self.host, port: self.port)
            {
                // AsyncHTTPClient has no hook between resolving and connecting: the name is judged
                // by resolving it here first, so one that resolves differently a moment later
                // (DNS rebinding) is not caught, where curl judges the address it connects to.
                throw UpstreamError.forbiddenAddress(self.host, port: self.port, method: self.request.method, url: self.request.url)
            }
            try await self.slots.acquire(host: self.origin)
            self.state.withLock { $0.holdsSlot = true }
            var outgoing = HTTPClientRequest(url: self.forwardedTo?.url ?? self.request.url)
            outgoing.method = HTTPMethod(rawValue: self.request.method)
            outgoing.headers = self.outgoingHeaders()
            (outgoing.body, requestBodyPump) = self.outgoingBody()
            let response: HTTPClientResponse
            do {
                response = try await client.execute(outgoing, deadline: .distantFuture, logger: self.logger)
            } catch let error as HTTPClientError where error == .remoteConnectionClosed {
                // Closed before any answer: most likely a kept-alive connection the origin had just
                // dropped. Sent once more on a new one, as curl does, when the body can be sent again:
                // none, fixed bytes, or a streamed one that ended within the replay limit.
                if requestBodyPump != nil {
                    guard let whole = self.state.withLock({ $0.replayBodyIsWhole ? $0.replayBody : nil }) else { throw error }
                    outgoing.body = .bytes(whole)
                }
                response = try await client.execute(outgoing, deadline: .distantFuture, logger: self.logger)
            }
            let head = UpstreamResponseHead(
                status: Int(response.status.code),
                reason: response.status.reasonPhrase,
                headers: response.headers.map { HeaderField(name: $0.name, value: $0.value) },
                httpVersion: response.version.major >= 2
                    ? "\(response.version.major)" : "\(response.version.major).\(response.version.minor)"
            )
            if let parent = self.parent, UpstreamProxy.isParentFailure(status: head.status) {
                // The parent's gateway error: the origin could not be reached, so fallbacks apply.
                throw UpstreamError(
                    kind: .connectionRefused,
                    message: "\(self.request.method) failed: the upstream proxy \(parent) answered \(head.status) "
                        + "(it could not reach the origin)",
                    url: self.request.url,
                    isConnectFailure: head.status != 503
                )
            }
            let demand = NIOBodyDemand(transfer: self)
            let bodySource = self.handOver(head, demand: demand)
            source = bodySource
            for try await chunk in response.body {
                self.moved(bodyBytes: chunk.readableBytes)
                switch bodySource.yield(chunk) {
                case .produceMore:
                    break
                case .stopProducing:
                    self.setWaitingForConsumer(true)
                    await demand.wait()
                    self.setWaitingForConsumer(false)
                case .dropped:
                    self.cancel(.consumerGone)
                    throw CancellationError()
                }
            }
            let (delivered, declared) = self.state.withLock { ($0.bodyBytesDelivered, $0.declaredBodyLength) }
            if let declared, delivered < declared {
                throw UpstreamError(
                    kind: .truncatedBody,
                    message: "\(self.request.method) failed: the body ended after \(delivered) of \(declared) declared bytes",
                    url: self.request.url)
            }
            self.end(with: nil, source: source)
        } catch {
            self.end(with: error, source: source)
        }
    }

    /// The caller's fields without the framing ones, and the configured `User-Agent` when it
    /// gave none. AsyncHTTPClient adds `Host` from the URL and frames the body.
    private func outgoingHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        var hasUserAgent = false
        for field in self.request.headers {
            let name = field.name.lowercased()
            guard !Self.framingHeaderNames.contains(name) else { continue }
            hasUserAgent = hasUserAgent || name == "user-agent"
            headers.add(name: field.name, value: field.value)
        }
        if !hasUserAgent, let userAgent = self.settings.userAgent {
            headers.add(name: "User-Agent", value: userAgent)
        }
        if let forwarded = self.forwardedTo, let parent = self.parent {
            // Sent to the parent as if it were the origin: the origin's name, and the parent's
            // credentials, which AsyncHTTPClient adds only to a CONNECT.
            headers.replaceOrAdd(name: "Host", value: forwarded.host)
            if let authorization = parent.proxyAuthorization {
                headers.replaceOrAdd(name: "Proxy-Authorization", value: authorization)
            }
        }
        return headers
    }

    /// The request body for AsyncHTTPClient, and the task that pumps a streamed one into it (which
    /// the transfer cancels when it ends).
    private func outgoingBody() -> (HTTPClientRequest.Body?, Task<Void, Never>?) {
        guard let body = self.request.body else { return (nil, nil) }
        switch body.content {
        case .bytes(let buffer):
            return (.bytes(buffer), nil)
        case .stream(let pump):
            // A channel, so that the pump waits while AsyncHTTPClient sends what it has.
            let channel = AsyncThrowingChannel<ByteBuffer, any Error>()
            let task = Task {
                do {
                    try await pump { chunk in
                        self.state.withLock { state in
                            if let kept = state.replayBody?.readableBytes, kept + chunk.readableBytes > Self.requestBodyReplayLimit {
                                state.replayBody = nil
                            } else {
                                state.replayBody?.writeImmutableBuffer(chunk)
                            }
                        }
                        await channel.send(chunk)
                        self.moved(bodyBytes: 0)
                    }
                    self.state.withLock { $0.replayBodyIsWhole = true }
                    channel.finish()
                } catch {
                    self.state.withLock { $0.requestBodyFailure = String(describing: error) }
                    channel.fail(error)
                }
            }
            return (.stream(channel, length: body.length.map { .known($0) } ?? .unknown), task)
        }
    }

    /// Resumes the caller with `head` and a body fed through the returned source, unless the
    /// caller is gone. The transfer keeps only the source: the body sequence dropped by its
    /// consumer unread must be gone for its delegate to hear of it (``NIOBodyDemand/didTerminate()``).
    private func handOver(_ head: UpstreamResponseHead, demand: NIOBodyDemand) -> Producer.Source {
        let body = Producer.makeSequence(backPressureStrategy: Self.bodyBackPressure, finishOnDeinit: true, delegate: demand)
        let continuation = self.state.withLock { state in
            state.headWasDelivered = true
            state.declaredBodyLength = head.declaredBodyLength(method: self.request.method)
            state.idleDeadline = .now() + TimeAmount(self.request.idleTimeout)
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        continuation?.resume(returning: UpstreamResponse(head: head, body: UpstreamBody(body.sequence)))
        return body.source
    }

    /// Ends the transfer: fails the caller awaiting the head, or ends the body with `error` (or
    /// cleanly without one).
    private func end(with error: (any Error)?, source: Producer.Source?) {
        let (continuation, failure, heldSlot, watchdog) = self.state.withLock {
            state -> (CheckedContinuation<UpstreamResponse, any Error>?, (any Error)?, Bool, NIOScheduledCallback?) in
            state.ended = true
            defer {
                state.holdsSlot = false
                state.headContinuation = nil
                state.watchdog = nil
            }
            return (state.headContinuation, error.map { self.classify($0, state: state) }, state.holdsSlot, state.watchdog)
        }
        watchdog?.cancel()
        if heldSlot { self.slots.release(host: self.origin) }
        self.onEnd(self)
        self.logger.debug(
            "upstream transfer ended",
            metadata: [
                "method": "\(self.request.method)", "url": "\(self.request.url)",
                "error": "\(failure.map { String(describing: $0) } ?? "-")",
            ])
        if let continuation {
            continuation.resume(
                throwing: failure
                    ?? UpstreamError(
                        kind: .other(0), message: "\(self.request.method) ended without a response head", url: self.request.url))
        }
        if let failure {
            source?.finish(failure)
        } else {
            source?.finish()
        }
    }

    /// The error the caller sees for `error`, which ended the transfer.
    private func classify(_ error: any Error, state: State) -> any Error {
        if let reason = state.cancelReason {
            return self.cancellationError(reason, headWasDelivered: state.headWasDelivered)
        }
        if let failure = state.requestBodyFailure {
            return UpstreamError(
                kind: .requestBodyFailed, message: "\(self.request.method) failed: the request body stream threw \(failure)",
                url: self.request.url)
        }
        if let error = error as? UpstreamError {
            return error
        }
        return UpstreamError(
            nio: error,
            context: .init(
                method: self.request.method, url: self.request.url, host: self.host, headWasDelivered: state.headWasDelivered,
                bodyBytesDelivered: state.bodyBytesDelivered, declaredBodyLength: state.declaredBodyLength, parent: self.parent))
    }

    private func cancellationError(_ reason: CancelReason, headWasDelivered: Bool) -> any Error {
        let why: String
        switch reason {
        case .taskCancelled where !headWasDelivered:
            return CancellationError()
        case .idleTimeout, .totalTimeout:
            let limit =
                reason == .idleTimeout
                ? "went idle for \(self.request.idleTimeout)" : "took longer than \(self.request.totalTimeout ?? .zero)"
            return UpstreamError(kind: .timeout, message: "\(self.request.method) failed: the transfer \(limit)", url: self.request.url)
        case .taskCancelled: why = "the requesting task was cancelled"
        case .consumerGone: why = "the response body was dropped before its end"
        case .shutdown: why = "the upstream client shut down"
        }
        return UpstreamError(kind: .cancelled, message: "\(self.request.method) cancelled: \(why)", url: self.request.url)
    }

    // MARK: Timeouts

    /// Bytes moved (a request body chunk taken, `bodyBytes` of the response body received): the
    /// idle clock starts over.
    private func moved(bodyBytes: Int) {
        self.state.withLock { state in
            state.bodyBytesDelivered += Int64(bodyBytes)
            state.idleDeadline = .now() + TimeAmount(self.request.idleTimeout)
        }
    }

    /// While the consumer has all it asked for, the transfer is not idle; its clock starts over when it asks again.
    fileprivate func setWaitingForConsumer(_ waiting: Bool) {
        self.state.withLock { state in
            state.waitingForConsumer = waiting
            state.idleDeadline = .now() + TimeAmount(self.request.idleTimeout)
        }
    }

    /// Checks the timeouts at `deadline`, and again at the next one until the transfer ends.
    ///
    /// AsyncHTTPClient's read timeout is per client and keeps running while a slow consumer holds
    /// the body back, so the idle and total timeouts are this watchdog's: one timer a transfer,
    /// moved forward lazily rather than on every chunk.
    private func watch(until deadline: NIODeadline) {
        let wanted = self.totalDeadline.map { min($0, deadline) } ?? deadline
        // Throws only once the event loop is shutting down, which ends every transfer on it.
        guard let scheduled = try? self.eventLoop.scheduleCallback(at: wanted, handler: Watchdog(transfer: self)) else { return }
        let ended = self.state.withLock { state in
            if !state.ended { state.watchdog = scheduled }
            return state.ended
        }
        if ended { scheduled.cancel() }
    }

    /// Runs the transfer's timeout check when its time comes.
    private struct Watchdog: NIOScheduledCallbackHandler, Sendable {
        let transfer: NIOTransfer

        func handleScheduledCallback(eventLoop: some EventLoop) {
            self.transfer.checkTimeouts()
        }
    }

    fileprivate func checkTimeouts() {
        let now = NIODeadline.now()
        let (expired, next) = self.state.withLock { state -> (CancelReason?, NIODeadline?) in
            guard !state.ended, state.cancelReason == nil else { return (nil, nil) }
            if let total = self.totalDeadline, now >= total { return (.totalTimeout, nil) }
            if state.waitingForConsumer { return (nil, now + TimeAmount(self.request.idleTimeout)) }
            if now >= state.idleDeadline { return (.idleTimeout, nil) }
            return (nil, state.idleDeadline)
        }
        if let expired {
            self.cancel(expired)
        } else if let next {
            self.watch(until: next)
        }
    }
}
