// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderUpstream
    import ServiceLifecycle

    /// A ``CurlUpstream`` as a service: it runs until graceful shutdown (or cancellation), then shuts the
    /// client down (its curl thread stops; later requests fail).
    ///
    /// Put it in a `ServiceGroup` before every service that uses the upstream: the group stops services
    /// in reverse order, so they have finished with it when it shuts down.
    public final class CurlUpstreamService: Service, Sendable {
        /// The client shut down on shutdown.
        public let upstream: CurlUpstream

        /// A service that shuts `upstream` down on shutdown.
        public init(upstream: CurlUpstream) {
            self.upstream = upstream
        }

        /// Waits for shutdown, then shuts the client down.
        public func run() async {
            // Cancelled instead of shut down gracefully: the client shuts down all the same.
            try? await gracefulShutdown()
            self.upstream.shutdown()
        }
    }
#endif
