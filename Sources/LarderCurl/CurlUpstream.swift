// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderUpstream
    import Logging

    /// The ``Upstream`` that fetches with libcurl.
    ///
    /// All transfers of one client share a libcurl multi handle, and so its connection cache (keep-alive and HTTP/2
    /// multiplexing), driven by one dedicated thread. Redirects are not followed and bodies are delivered as the
    /// origin encoded them. TLS peers are always verified.
    public final class CurlUpstream: Upstream, Sendable {
        private let driver: CurlMultiDriver
        private let settings: CurlTransfer.Settings
        private let logger: Logger

        /// Starts a client and its curl thread.
        ///
        /// - Throws: ``UpstreamConfigurationError`` when the configuration is unusable, e.g. an additional CA file that
        ///   cannot be read or holds no PEM certificate, or a negative connection limit.
        public init(configuration: UpstreamConfiguration = .init(), logger: Logger = Logger(label: "larder.upstream")) throws {
            try CurlGlobal.initialize()
            guard configuration.maxConnectionsPerHost >= 0, configuration.maxTotalConnections >= 0 else {
                throw UpstreamConfigurationError(
                    message: "connection limits must be 0 (no limit) or more, not maxConnectionsPerHost "
                        + "\(configuration.maxConnectionsPerHost) and maxTotalConnections \(configuration.maxTotalConnections)"
                )
            }
            self.settings = CurlTransfer.Settings(
                trustBundle: try TrustBundleFile(trust: configuration.trust, logger: logger), userAgent: configuration.userAgent,
                proxy: configuration.proxy)
            self.driver = try CurlMultiDriver(configuration: configuration, logger: logger)
            self.logger = logger
        }

        deinit {
            self.driver.shutdown(waitUntilStopped: false)
        }

        /// Sends `request` and returns once the response head has arrived; see ``Upstream/execute(_:)``.
        ///
        /// - Throws: ``UpstreamError`` when the request is invalid or the transfer fails before the head,
        ///   `CancellationError` when the calling task is cancelled first (which aborts the transfer).
        public func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            try await self.run(CurlTransfer(request: request, settings: self.settings, driver: self.driver, logger: self.logger))
        }

        /// Sends `request` with its body written into `sink` on the curl thread, and returns the head
        /// once the transfer has ended; see ``Upstream/receive(_:into:)``.
        public func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead {
            let transfer = try CurlTransfer(
                request: request, bodySink: sink, settings: self.settings, driver: self.driver, logger: self.logger)
            return try await self.run(transfer).head
        }

        /// Hands `transfer` to the curl thread and waits for its response (the head, or for a
        /// transfer with a body sink, the end).
        private func run(_ transfer: CurlTransfer) async throws -> UpstreamResponse {
            let driver = self.driver
            let request = transfer.request
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.setHeadContinuation(continuation)
                    guard driver.enqueue(.start(transfer)) else {
                        continuation.resume(
                            throwing: UpstreamError(
                                kind: .cancelled,
                                message: "\(request.method) not sent: the upstream client has shut down",
                                url: request.url
                            )
                        )
                        return
                    }
                }
            } onCancel: {
                driver.enqueue(.cancel(transfer, .taskCancelled))
            }
        }

        /// Fails in-flight transfers with ``UpstreamError/Kind/cancelled`` and stops the curl thread; later requests
        /// fail the same way.
        ///
        /// Idempotent; returns once the thread has stopped. Dropping the last reference does the same without waiting.
        public func shutdown() {
            self.driver.shutdown(waitUntilStopped: true)
        }
    }
#endif
