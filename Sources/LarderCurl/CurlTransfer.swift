// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import CCurl
    import LarderHTTP
    import LarderUpstream
    import Logging
    import NIOCore

    /// One request's curl easy handle and the state of its transfer.
    ///
    /// `@unchecked Sendable`: a transfer is made on the caller's task and handed to the curl thread through the
    /// driver's locked command queue, which orders everything the caller did before it. From then on its mutable state
    /// is touched only on the curl thread, in command handlers and curl callbacks. What other threads use is
    /// thread-safe on its own: the ``RequestBodyBuffer``, the body producer's source, and the immutable `let`s.
    final class CurlTransfer: @unchecked Sendable {
        /// Why a transfer is cancelled.
        enum CancelReason: Sendable {
            /// The task awaiting the response head was cancelled.
            case taskCancelled
            /// The response body (or its iterator) was dropped before its end.
            case consumerGone
            /// The client shut down.
            case shutdown
        }

        /// How a transfer ended.
        enum Outcome {
            /// curl finished it with this result.
            case curlResult(CURLcode)
            /// It was cancelled.
            case cancelled(CancelReason)
            /// It could not be started.
            case failed(UpstreamError)
        }

        /// Where a transfer is in its life.
        enum Phase {
            /// Made, not yet handed to curl.
            case created
            /// In the multi handle.
            case running
            /// Over, its outcome reported.
            case finished
        }

        /// Settings from the client's configuration that every transfer applies.
        struct Settings: Sendable {
            /// The trusted roots, a file curl parses once per multi handle; `nil` uses curl's default store.
            var trustBundle: TrustBundleFile?
            /// The `User-Agent` for requests without one.
            var userAgent: String?
            /// Which requests go through a parent proxy.
            var proxy: UpstreamProxy
        }

        /// Largest chunk curl hands to the write callback (CURLOPT_BUFFERSIZE).
        private static let receiveChunkSize = 64 * 1024
        /// Request body bytes buffered ahead of curl before the body stream is made to wait.
        private static let requestBodyBufferLimit = 256 * 1024
        /// Streamed request bodies up to this size are kept so they can be resent when a kept-alive connection dies.
        private static let requestBodyReplayLimit = 64 * 1024
        /// Body chunks buffered for the consumer: curl is paused above the high mark and resumed below the low one,
        /// so at most `highWatermark + 1` chunks of `receiveChunkSize` wait in memory.
        private static let bodyBackPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
            lowWatermark: 2,
            highWatermark: 8
        )
        /// Request header fields the client derives itself rather than taking from the caller.
        private static let framingHeaderNames: Set<String> = ["content-length", "transfer-encoding", "expect"]
        /// Methods that carry a body by definition, sent with `Content-Length: 0` when they have none.
        private static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

        let request: UpstreamRequest
        /// Where the body goes when the caller receives it whole (``Upstream/receive(_:into:)``):
        /// written here on the curl thread, and the caller resumed once, when the transfer ends.
        /// nil: the body streams to the caller through ``UpstreamBody``.
        private let bodySink: (any UpstreamBodySink)?
        private let settings: Settings
        /// The parent proxy this request goes through; nil: straight to the origin.
        private let parent: ProxyEndpoint?
        private let driver: CurlMultiDriver
        private let logger: Logger
        private let allocator = ByteBufferAllocator()

        // MARK: curl thread state

        private(set) var phase = Phase.created
        private(set) var easy: UnsafeMutableRawPointer?
        private var cancelledBeforeStart: CancelReason?
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private let errorBuffer: UnsafeMutablePointer<CChar>
        private var headContinuation: CheckedContinuation<UpstreamResponse, any Error>?
        private var headParser = ResponseHeadParser()
        private var headWasDelivered = false
        /// The final head with its body, read but not yet handed to the caller: the driver hands it
        /// over at the end of its pass (``handOverHead()``).
        private var readyResponse: UpstreamResponse?
        private var bodySource: UpstreamBody.Producer.Source?
        private var receivePauseRequested = false
        private var receiveIsPaused = false
        private var sendIsPaused = false
        private let bodyBytesDelivered = BodyByteCounter()
        private var declaredBodyLength: Int64?
        private var consumerIsGone = false
        /// Why one of this transfer's callbacks made curl abort, when it did.
        private var abortError: UpstreamError?
        /// An address the request may not reach that curl was refused a socket for
        /// (``mayOpenSocket(to:port:)``): the error when it could connect nowhere else.
        private var refusedAddress: UpstreamError?
        /// What the body sink threw, which made curl abort.
        private var sinkError: (any Error)?
        private var requestBody: RequestBodyBuffer?
        private var requestBodyPump: Task<Void, Never>?

        /// Checks `request` and makes a transfer for it.
        ///
        /// - Throws: ``UpstreamError`` of kind ``UpstreamError/Kind/invalidRequest`` when the request cannot be sent.
        init(
            request: UpstreamRequest, bodySink: (any UpstreamBodySink)? = nil, settings: Settings, driver: CurlMultiDriver, logger: Logger
        ) throws(UpstreamError) {
            try request.validate()
            self.request = request
            self.bodySink = bodySink
            self.settings = settings
            let url = try? HTTPURL(parsing: request.url)
            self.parent = settings.proxy.endpoint(scheme: url?.scheme ?? "http", host: url?.host ?? "")
            self.driver = driver
            self.logger = logger
            self.errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
            self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            self.errorBuffer.deallocate()
        }

        /// Stores the continuation resumed with the response head or the failure; called once, before the transfer is
        /// handed to the driver.
        func setHeadContinuation(_ continuation: CheckedContinuation<UpstreamResponse, any Error>) {
            self.headContinuation = continuation
        }

        // MARK: Driver entry points (curl thread)

        /// Creates and configures the easy handle, adds it to `multi` and starts sending the request body.
        ///
        /// - Returns: The easy handle, or `nil` when the transfer ended instead (cancelled before it started, or a
        ///   setup failure), in which case its outcome has been reported.
        /// - Parameter share: the driver's share handle, which keeps TLS sessions for every transfer.
        func start(multi: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
            if let reason = self.cancelledBeforeStart {
                self.complete(.cancelled(reason), multi: multi)
                return nil
            }
            do throws(UpstreamError) {
                let easy = try self.makeEasyHandle(share: share)
                let added = curl_multi_add_handle(multi, easy)
                guard added == CURLM_OK else {
                    throw UpstreamError(
                        kind: .other(Int(added.rawValue)),
                        message: "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))",
                        url: self.request.url
                    )
                }
                self.phase = .running
                self.startRequestBodyPump()
                return easy
            } catch {
                self.complete(.failed(error), multi: multi)
                return nil
            }
        }

        /// Marks a transfer that has not started yet as cancelled; it ends as soon as the driver starts it.
        func cancelBeforeStart(_ reason: CancelReason) {
            if self.cancelledBeforeStart == nil {
                self.cancelledBeforeStart = reason
            }
        }

        /// The consumer wants more body: clears the pause request and unpauses receiving if curl is paused.
        ///
        /// - Returns: curl's result; a failure ends the transfer.
        func resumeReceiving() -> CURLcode {
            self.receivePauseRequested = false
            guard self.phase == .running, self.receiveIsPaused else {
                return CURLE_OK
            }
            self.receiveIsPaused = false
            // May call the write callback again right away with the chunk curl held back.
            return self.applyPauseState()
        }

        /// Request body bytes arrived: unpauses sending if curl is paused waiting for them.
        ///
        /// - Returns: curl's result; a failure ends the transfer.
        func resumeSending() -> CURLcode {
            guard self.phase == .running, self.sendIsPaused else {
                return CURLE_OK
            }
            self.sendIsPaused = false
            return self.applyPauseState()
        }

        /// Ends the transfer: releases its curl handle, stops the request body, and reports `outcome` to the task awaiting
        /// the head or to the body's consumer. Does nothing when it already ended.
        func complete(_ outcome: Outcome, multi: UnsafeMutableRawPointer?) {
            guard self.phase != .finished else {
                return
            }
            let error = self.error(for: outcome)
            if let easy = self.easy {
                if self.phase == .running, let multi {
                    curl_multi_remove_handle(multi, easy)
                }
                curl_easy_cleanup(easy)
                self.easy = nil
            }
            curl_slist_free_all(self.headerList)
            self.headerList = nil
            self.phase = .finished
            self.requestBodyPump?.cancel()
            self.requestBodyPump = nil
            self.requestBody?.close()
            self.requestBody = nil

            self.logger.debug(
                "upstream transfer ended",
                metadata: [
                    "method": "\(self.request.method)", "url": "\(self.request.url)",
                    "status": "\(self.headParser.head.map { String($0.status) } ?? "-")",
                    "bodyBytes": "\(self.bodyBytesDelivered.total)",
                    "error": "\(error.map { String(describing: $0) } ?? "-")",
                ]
            )

            if case .cancelled = outcome {
                // The caller is gone or going: it gets the cancellation, not a head.
                self.readyResponse = nil
            } else {
                if self.bodySink != nil, error == nil, self.headWasDelivered, let head = self.headParser.head {
                    // The whole body is in the sink: the head goes back now (a failure, below).
                    self.readyResponse = UpstreamResponse(head: head, body: .empty)
                }
                self.handOverHead()
            }
            if let continuation = self.headContinuation {
                self.headContinuation = nil
                continuation.resume(
                    throwing: error
                        ?? UpstreamError(
                            kind: .other(Int(CURLE_WEIRD_SERVER_REPLY.rawValue)),
                            message: "\(self.request.method) ended without a response head",
                            url: self.request.url
                        )
                )
            }
            if let source = self.bodySource {
                self.bodySource = nil
                if let error {
                    source.finish(error)
                } else {
                    source.finish()
                }
            }
        }

        // MARK: curl callbacks (curl thread)

        /// CURLOPT_WRITEFUNCTION: writes a body chunk into the body sink, or hands it to the consumer
        /// (or pauses receiving when asked to).
        fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
            if let sink = self.bodySink, self.headWasDelivered {
                do {
                    try sink.write(bytes)
                } catch {
                    self.sinkError = error
                    return 0
                }
                self.bodyBytesDelivered.add(bytes.count)
                return bytes.count
            }
            guard let source = self.bodySource else {
                self.abortError = UpstreamError(
                    kind: .other(Int(CURLE_WEIRD_SERVER_REPLY.rawValue)),
                    message: "\(self.request.method) received body bytes before a final response head",
                    url: self.request.url
                )
                return 0
            }
            if self.receivePauseRequested {
                // curl keeps this chunk and delivers it again once unpaused.
                self.receiveIsPaused = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            self.bodyBytesDelivered.add(bytes.count)
            switch source.yield(self.allocator.buffer(bytes: bytes)) {
            case .produceMore:
                break
            case .stopProducing:
                self.receivePauseRequested = true
            case .dropped:
                self.consumerIsGone = true
                return 0
            }
            return bytes.count
        }

        /// CURLOPT_HEADERFUNCTION: collects header lines; at the end of the final head, resumes the caller.
        fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
            guard !self.headWasDelivered else {
                // Trailer fields after a chunked body; not passed on.
                return bytes.count
            }
            do {
                let progress = try self.headParser.consume(bytes)
                if progress != .needMore, !self.headParser.droppedFields.isEmpty {
                    self.logger.notice(
                        "dropped upstream header fields holding a CR, LF or NUL byte",
                        metadata: ["url": "\(self.request.url)", "fields": "\(self.headParser.droppedFields.joined(separator: ", "))"]
                    )
                }
                switch progress {
                case .complete:
                    if let parent = self.parent, let status = self.headParser.head?.status, UpstreamProxy.isParentFailure(status: status) {
                        // The parent's gateway error: the origin could not be reached, so fallbacks apply.
                        self.abortError = UpstreamError(
                            kind: .connectionRefused,
                            message: "\(self.request.method) failed: the upstream proxy \(parent) answered \(status) "
                                + "(it could not reach the origin)",
                            url: self.request.url,
                            isConnectFailure: status != 503
                        )
                        return 0
                    }
                    self.prepareHead()
                case .interim:
                    if let interim = self.headParser.interim { self.request.interim?(interim) }
                case .needMore:
                    break
                }
            } catch {
                self.abortError = UpstreamError(
                    kind: .other(Int(CURLE_WEIRD_SERVER_REPLY.rawValue)),
                    message: "\(self.request.method) received a malformed response head: \(error.reason)",
                    url: self.request.url
                )
                return 0
            }
            return bytes.count
        }

        /// CURLOPT_READFUNCTION: copies request body bytes for curl to send, or pauses sending until some arrive.
        fileprivate func sendBody(into destination: UnsafeMutableRawBufferPointer) -> Int {
            guard let requestBody = self.requestBody else {
                return 0
            }
            switch requestBody.read(into: destination) {
            case .bytes(let count):
                return count
            case .end:
                return 0
            case .wait:
                self.sendIsPaused = true
                return Int(CURL_READFUNC_PAUSE)
            case .failed:
                self.abortError = requestBody.failure
                return Int(CURL_READFUNC_ABORT)
            }
        }

        /// CURLOPT_SEEKFUNCTION: starts the request body over, which only a fixed body can do.
        fileprivate func rewindBody(to offset: Int64, origin: Int32) -> Int32 {
            guard offset == 0, origin == SEEK_SET, let requestBody = self.requestBody, requestBody.rewind() else {
                return CURL_SEEKFUNC_CANTSEEK
            }
            return CURL_SEEKFUNC_OK
        }

        // MARK: Internals

        /// Makes the response for the final head just read, for the driver to hand over at the end of
        /// its pass: a small body, and its end, are read in the same pass, so the caller wakes once to
        /// find them all rather than once for the head, once for the body and once for its end.
        private func prepareHead() {
            guard let head = self.headParser.head else {
                return
            }
            self.headWasDelivered = true
            self.declaredBodyLength = head.declaredBodyLength(method: self.request.method)
            guard self.bodySink == nil else {
                // Handed over with the whole body, when the transfer ends (``complete(_:multi:)``).
                return
            }
            let body = UpstreamBody.Producer.makeSequence(
                backPressureStrategy: Self.bodyBackPressure,
                finishOnDeinit: true,  // `complete` always finishes it; this is only a backstop
                delegate: UpstreamBodyProducerDelegate(
                    resume: { [driver = self.driver] in driver.enqueue(.resumeReceiving(self)) },
                    consumerGone: { [driver = self.driver] in driver.enqueue(.cancel(self, .consumerGone)) })
            )
            self.bodySource = body.source
            self.readyResponse = UpstreamResponse(
                head: head, body: UpstreamBody(producer: body.sequence, receivedBytes: self.bodyBytesDelivered))
            self.driver.handOverAtEndOfPass(self)
        }

        /// Resumes the caller with the response ``prepareHead()`` made; does nothing when there is
        /// none or it was handed over already.
        func handOverHead() {
            guard let response = self.readyResponse, let continuation = self.headContinuation else {
                return
            }
            self.readyResponse = nil
            self.headContinuation = nil
            continuation.resume(returning: response)
        }

        private func applyPauseState() -> CURLcode {
            guard let easy = self.easy else {
                return CURLE_OK
            }
            var mask: Int32 = 0
            if self.receiveIsPaused {
                mask |= CURLPAUSE_RECV
            }
            if self.sendIsPaused {
                mask |= CURLPAUSE_SEND
            }
            return curl_easy_pause(easy, mask)
        }

        private func startRequestBodyPump() {
            guard case .stream(let pump) = self.request.body?.content, let requestBody = self.requestBody else {
                return
            }
            // Unstructured: curl's thread asks for the body while `execute` may already have returned the
            // head; the transfer cancels the pump when it completes, so it never outlives the transfer.
            self.requestBodyPump = Task {
                do {
                    try await pump { chunk in
                        try await requestBody.write(chunk)
                    }
                    requestBody.finish()
                } catch {
                    requestBody.fail(error)
                }
            }
        }

        private func error(for outcome: Outcome) -> (any Error)? {
            switch outcome {
            case .curlResult(let code) where code == CURLE_OK:
                if self.headWasDelivered, let declared = self.declaredBodyLength,
                    self.bodyBytesDelivered.total < declared
                {
                    return UpstreamError(
                        kind: .truncatedBody,
                        message: "\(self.request.method) failed: the body ended after \(self.bodyBytesDelivered.total) "
                            + "of \(declared) declared bytes",
                        url: self.request.url
                    )
                }
                return nil
            case .curlResult(let code):
                if let sinkError = self.sinkError {
                    return sinkError
                }
                if let abortError = self.abortError {
                    return abortError
                }
                if let refusedAddress = self.refusedAddress, code == CURLE_COULDNT_CONNECT {
                    return refusedAddress
                }
                if self.consumerIsGone {
                    return self.cancellationError(.consumerGone)
                }
                return UpstreamError(curlCode: code, context: self.failureContext())
            case .cancelled(.taskCancelled) where !self.headWasDelivered:
                return CancellationError()
            case .cancelled(let reason):
                return self.cancellationError(reason)
            case .failed(let error):
                return error
            }
        }

        private func cancellationError(_ reason: CancelReason) -> UpstreamError {
            let why =
                switch reason {
                case .taskCancelled: "the requesting task was cancelled"
                case .consumerGone: "the response body was dropped before its end"
                case .shutdown: "the upstream client shut down"
                }
            return UpstreamError(
                kind: .cancelled, message: "\(self.request.method) cancelled: \(why)", url: self.request.url)
        }

        private func failureContext() -> UpstreamError.CurlFailureContext {
            var pretransferMicroseconds: curl_off_t = 0
            var connectStatus = 0
            if let easy = self.easy {
                _ = larder_curl_easy_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransferMicroseconds)
                _ = larder_curl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectStatus)
            }
            return UpstreamError.CurlFailureContext(
                method: self.request.method,
                url: self.request.url,
                wasConnected: self.headWasDelivered || pretransferMicroseconds > 0,
                headWasDelivered: self.headWasDelivered,
                bodyBytesDelivered: self.bodyBytesDelivered.total,
                declaredBodyLength: self.declaredBodyLength,
                curlDetail: String(cString: self.errorBuffer),
                parent: self.parent,
                parentConnectStatus: connectStatus
            )
        }
    }

    // MARK: - Easy handle setup

    extension CurlTransfer {
        private func makeEasyHandle(share: UnsafeMutableRawPointer?) throws(UpstreamError) -> UnsafeMutableRawPointer {
            guard let easy = curl_easy_init() else {
                throw UpstreamError(
                    kind: .other(Int(CURLE_OUT_OF_MEMORY.rawValue)), message: "curl_easy_init failed", url: self.request.url
                )
            }
            self.easy = easy
            let this = Unmanaged.passUnretained(self).toOpaque()
            let request = self.request

            try self.set(CURLOPT_URL, string: request.url)
            try self.set(CURLOPT_NOSIGNAL, 1)
            let trustBundlePath = self.settings.trustBundle?.currentPath()
            try self.setProxy(trustBundlePath: trustBundlePath)
            try self.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
            // Forward the path as given, without squashing "/../".
            try self.set(CURLOPT_PATH_AS_IS, 1)
            try self.set(CURLOPT_FOLLOWLOCATION, 0)
            // Deliver bodies as encoded by the origin (chunked framing is still decoded).
            try self.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
            try self.set(CURLOPT_SSL_VERIFYPEER, 1)
            try self.set(CURLOPT_SSL_VERIFYHOST, 2)
            if let trustBundlePath {
                try self.set(CURLOPT_CAINFO, string: trustBundlePath)
                // Without a CA folder, curl keeps the store it builds from the file (TrustBundleFile.swift).
                try self.set(CURLOPT_CAPATH, pointer: nil)
                // A changed bundle gets a new path, which curl's cache is keyed by.
                try self.set(CURLOPT_CA_CACHE_TIMEOUT, -1)
            }
            // New connections resume TLS sessions of earlier transfers (all on the curl thread, so no locks).
            try self.set(CURLOPT_SHARE, pointer: share)
            // Cancelling must not wait for a stuck DNS lookup thread.
            try self.set(CURLOPT_QUICK_EXIT, 1)
            try self.set(CURLOPT_TCP_KEEPALIVE, 1)
            try self.set(CURLOPT_BUFFERSIZE, Self.receiveChunkSize)
            try self.set(CURLOPT_ERRORBUFFER, pointer: self.errorBuffer)

            try self.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, Self.milliseconds(request.connectTimeout)))
            // Idle timeout: fail after LOW_SPEED_TIME seconds below 1 byte/s. curl (since 7.75) does not count time
            // a transfer spends with receiving paused, so a slow body consumer does not trip it.
            try self.set(CURLOPT_LOW_SPEED_LIMIT, 1)
            try self.set(CURLOPT_LOW_SPEED_TIME, max(1, (Self.milliseconds(request.idleTimeout) + 999) / 1000))
            if let totalTimeout = request.totalTimeout {
                try self.set(CURLOPT_TIMEOUT_MS, max(1, Self.milliseconds(totalTimeout)))
            }

            try self.check(
                larder_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback),
                CURLOPT_WRITEFUNCTION)
            try self.set(CURLOPT_WRITEDATA, pointer: this)
            try self.check(
                larder_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback),
                CURLOPT_HEADERFUNCTION)
            try self.set(CURLOPT_HEADERDATA, pointer: this)

            if request.reach != nil, self.parent == nil {
                // Each new connection's address before connecting (no SYN to a refused port), and
                // every connection, reused ones included, before the request is sent on it.
                try self.check(larder_curl_easy_setopt_opensocket_callback(easy, curlOpenSocketCallback), CURLOPT_OPENSOCKETFUNCTION)
                try self.set(CURLOPT_OPENSOCKETDATA, pointer: this)
                try self.check(larder_curl_easy_setopt_prereq_callback(easy, curlPrereqCallback), CURLOPT_PREREQFUNCTION)
                try self.set(CURLOPT_PREREQDATA, pointer: this)
            }

            try self.setMethodAndBody()
            try self.setHeaders()
            return easy
        }

        /// CURLOPT_OPENSOCKETFUNCTION: whether curl may connect to `address` at `port` (4 or 16
        /// bytes): not when it is an address of the box's own ``UpstreamRequest/reach`` does not
        /// allow. A refusal is kept, and is the transfer's error when no other address connects.
        fileprivate func mayOpenSocket(to address: [UInt8], port: Int) -> Bool {
            guard let refusal = self.reachRefusal(address, text: IPNetwork.text(ofAddress: address), port: port) else { return true }
            self.refusedAddress = refusal
            return false
        }

        /// CURLOPT_PREREQFUNCTION: refuses a connection, new or reused, to an address of the box's
        /// own that ``UpstreamRequest/reach`` does not allow, before the request is sent on it.
        fileprivate func mayUseConnection(to address: String, port: Int) -> Bool {
            guard let refusal = self.reachRefusal(IPNetwork.bytes(ofAddress: address), text: address, port: port) else { return true }
            self.abortError = refusal
            return false
        }

        /// Why the request may not use a connection to `address` (`text` as shown; an address that
        /// does not read as one is refused), nil when its reach allows it or it has none.
        private func reachRefusal(_ address: [UInt8]?, text: String, port: Int) -> UpstreamError? {
            guard let reach = self.request.reach else { return nil }
            if let address, reach.mayConnect(to: address, port: port) { return nil }
            return .forbiddenAddress(text, port: port, method: self.request.method, url: self.request.url)
        }

        /// The parent proxy, or none. Always set, so curl never reads the proxy variables itself:
        /// ``UpstreamProxy`` has already resolved them, and one rule decides for curl and the connector.
        private func setProxy(trustBundlePath: String?) throws(UpstreamError) {
            // An empty CURLOPT_NOPROXY keeps curl from applying no_proxy a second time.
            try self.set(CURLOPT_NOPROXY, string: "")
            guard let parent = self.parent else {
                try self.set(CURLOPT_PROXY, string: "")
                return
            }
            // https:// origins are reached with CONNECT (curl tunnels them itself), http:// ones in absolute form.
            try self.set(CURLOPT_PROXY, string: parent.url)
            if let username = parent.username {
                try self.set(CURLOPT_PROXYUSERNAME, string: username)
                try self.set(CURLOPT_PROXYPASSWORD, string: parent.password ?? "")
            }
            // The CONNECT answer is not the origin's head.
            try self.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
            try self.set(CURLOPT_PROXY_SSL_VERIFYPEER, 1)
            try self.set(CURLOPT_PROXY_SSL_VERIFYHOST, 2)
            if let trustBundlePath {
                try self.set(CURLOPT_PROXY_CAINFO, string: trustBundlePath)
                try self.set(CURLOPT_PROXY_CAPATH, pointer: nil)
            }
        }

        private func setMethodAndBody() throws(UpstreamError) {
            let request = self.request
            let body: UpstreamRequestBody?
            if request.body == nil, Self.methodsWithBody.contains(request.method) {
                body = .bytes(ByteBuffer())
            } else {
                body = request.body
            }
            guard let body else {
                switch request.method {
                case "GET":
                    break
                case "HEAD":
                    try self.set(CURLOPT_NOBODY, 1)
                default:
                    try self.set(CURLOPT_CUSTOMREQUEST, string: request.method)
                }
                return
            }
            try self.set(CURLOPT_UPLOAD, 1)
            try self.set(CURLOPT_CUSTOMREQUEST, string: request.method)
            if let length = body.length {
                // Without a length, curl sends the body with chunked transfer-encoding (HTTP/1.1) or plain DATA frames (HTTP/2).
                try self.check(
                    larder_curl_easy_setopt_off_t(self.easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(length)),
                    CURLOPT_INFILESIZE_LARGE)
            }
            switch body.content {
            case .bytes(let buffer):
                self.requestBody = RequestBodyBuffer(completeBody: buffer, url: request.url)
            case .stream:
                self.requestBody = RequestBodyBuffer(
                    declaredLength: body.length,
                    limit: Self.requestBodyBufferLimit,
                    replayLimit: Self.requestBodyReplayLimit,
                    url: request.url,
                    onReadable: { [weak self] in
                        guard let self else {
                            return
                        }
                        self.driver.enqueue(.resumeSending(self))
                    }
                )
            }
            try self.check(
                larder_curl_easy_setopt_read_callback(self.easy, CURLOPT_READFUNCTION, curlReadCallback),
                CURLOPT_READFUNCTION)
            try self.set(CURLOPT_READDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
            // curl rewinds the body to resend it when a reused connection turns out dead.
            try self.check(
                larder_curl_easy_setopt_seek_callback(self.easy, CURLOPT_SEEKFUNCTION, curlSeekCallback),
                CURLOPT_SEEKFUNCTION)
            try self.set(CURLOPT_SEEKDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        }

        private func setHeaders() throws(UpstreamError) {
            var lines: [String] = []
            var hasUserAgent = false
            for field in self.request.headers {
                let (name, value) = (field.name, field.value)
                let lowercasedName = name.lowercased()
                if Self.framingHeaderNames.contains(lowercasedName) {
                    continue
                }
                hasUserAgent = hasUserAgent || lowercasedName == "user-agent"
                // "Name:" would tell curl to remove the header; "Name;" sends it with an empty value.
                lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            // Never wait for 100 Continue: send request bodies right away.
            lines.append("Expect:")
            for line in lines {
                guard let list = curl_slist_append(self.headerList, line) else {
                    throw UpstreamError(
                        kind: .other(Int(CURLE_OUT_OF_MEMORY.rawValue)), message: "curl_slist_append failed",
                        url: self.request.url)
                }
                self.headerList = list
            }
            try self.set(CURLOPT_HTTPHEADER, pointer: self.headerList)
            if !hasUserAgent, let userAgent = self.settings.userAgent {
                try self.set(CURLOPT_USERAGENT, string: userAgent)
            }
        }

        private func set(_ option: CURLoption, _ value: Int) throws(UpstreamError) {
            try self.check(larder_curl_easy_setopt_long(self.easy, option, value), option)
        }

        private func set(_ option: CURLoption, string value: String) throws(UpstreamError) {
            // curl copies string options.
            try self.check(larder_curl_easy_setopt_string(self.easy, option, value), option)
        }

        private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(UpstreamError) {
            try self.check(larder_curl_easy_setopt_pointer(self.easy, option, value), option)
        }

        private func check(_ result: CURLcode, _ option: CURLoption) throws(UpstreamError) {
            guard result == CURLE_OK else {
                throw UpstreamError(
                    kind: .other(Int(result.rawValue)),
                    message:
                        "setting curl option \(option.rawValue) failed: \(String(cString: curl_easy_strerror(result)))",
                    url: self.request.url
                )
            }
        }

        private static func milliseconds(_ duration: Duration) -> Int {
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0 else {
                return 0
            }
            let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return overflow ? Int.max : Int(milliseconds + attoseconds / 1_000_000_000_000_000)
        }
    }

    // MARK: - C callbacks

    // The user data pointer of every callback is the transfer (unretained: the driver keeps it alive while its easy
    // handle exists).

    private let curlWriteCallback: curl_write_callback = { data, size, count, userData in
        guard let userData else {
            return 0
        }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    private let curlHeaderCallback: curl_write_callback = { data, size, count, userData in
        guard let userData else {
            return 0
        }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    private let curlOpenSocketCallback: curl_opensocket_callback = { userData, _, address in
        guard let userData, let address else {
            return CURL_SOCKET_BAD
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        var port: Int32 = 0
        let count = Int(larder_curl_sockaddr_address(address, &bytes, &port))
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        if count > 0, !transfer.mayOpenSocket(to: Array(bytes.prefix(count)), port: Int(port)) {
            return CURL_SOCKET_BAD
        }
        return larder_curl_open_socket(address)
    }

    private let curlPrereqCallback: curl_prereq_callback = { userData, primaryIP, _, primaryPort, _ in
        guard let userData, let primaryIP else {
            return CURL_PREREQFUNC_ABORT
        }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        return transfer.mayUseConnection(to: String(cString: primaryIP), port: Int(primaryPort))
            ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
    }

    private let curlReadCallback: curl_read_callback = { data, size, count, userData in
        guard let userData else {
            return Int(CURL_READFUNC_ABORT)
        }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
    }

    private let curlSeekCallback: curl_seek_callback = { userData, offset, origin in
        guard let userData else {
            return CURL_SEEKFUNC_FAIL
        }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
        return transfer.rewindBody(to: Int64(offset), origin: origin)
    }
#endif
