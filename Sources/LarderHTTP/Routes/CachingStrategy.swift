/// How a GET or HEAD is answered: from the cache, the network, or both in some order.
///
/// The names are Workbox's, plus `http`, a private HTTP cache as RFC 9111 describes it.
public enum CachingStrategy: String, Sendable, Hashable, CaseIterable {
    /// RFC 9111: a fresh stored response is answered without the network; a stale one is revalidated;
    /// when upstream fails a stale copy is served unless `must-revalidate` or `no-cache` forbid it.
    case http
    /// Any stored response is answered without the network (within `maxAgeSeconds`); a miss is fetched.
    case cacheFirst = "cache-first"
    /// The network answers, within `networkTimeoutSeconds` when a copy is stored; the copy when it fails.
    case networkFirst = "network-first"
    /// A stored response is answered at once and refreshed from the network in the background.
    case staleWhileRevalidate = "stale-while-revalidate"
    /// Always the network; nothing is stored or answered from the cache.
    case networkOnly = "network-only"
    /// Only the cache; a miss is a 504 without contacting the network.
    case cacheOnly = "cache-only"
}
