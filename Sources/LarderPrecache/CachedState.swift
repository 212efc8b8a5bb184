/// What the store already holds for a precached URL.
public struct CachedState: Sendable, Hashable {
    /// The Workbox revision the stored body was fetched for, or nil when it had none.
    public var revision: String?

    /// Creates a cached state.
    public init(revision: String? = nil) {
        self.revision = revision
    }
}
