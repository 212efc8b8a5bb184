import LarderUpstream
import ServiceLifecycle

/// A ``NIOUpstream`` as a service: it runs until graceful shutdown (or cancellation), then shuts the
/// client down (its event loop stops; later requests fail).
///
/// Put it in a `ServiceGroup` before every service that uses the upstream: the group stops services
/// in reverse order, so they have finished with it when it shuts down.
public final class NIOUpstreamService: Service, Sendable {
    /// The client shut down on shutdown.
    public let upstream: NIOUpstream

    /// A service that shuts `upstream` down on shutdown.
    public init(upstream: NIOUpstream) {
        self.upstream = upstream
    }

    /// Waits for shutdown, then shuts the client down.
    public func run() async {
        // Cancelled instead of shut down gracefully: the client shuts down all the same.
        try? await gracefulShutdown()
        await self.upstream.shutdown()
    }
}
