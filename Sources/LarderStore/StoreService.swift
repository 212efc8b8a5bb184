import ServiceLifecycle

/// A store as a service: it runs until graceful shutdown (or cancellation), then closes the store.
///
/// Put it in a `ServiceGroup` before every service that uses the store: the group stops services in
/// reverse order, so they have finished with it when it closes.
public final class StoreService: Service, Sendable {
    /// The store closed on shutdown.
    public let store: Store

    /// A service that closes `store` on shutdown.
    public init(store: Store) {
        self.store = store
    }

    /// Waits for shutdown, then closes the store.
    public func run() async throws {
        // Cancelled instead of shut down gracefully: the store closes all the same.
        try? await gracefulShutdown()
        try self.store.close()
    }
}
