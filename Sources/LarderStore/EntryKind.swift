/// How an entry came into the store, which decides how it is served and evicted.
public enum EntryKind: String, Sendable, Codable {
    /// Kept from traffic seen at run time; an HTTP cache entry, evictable least recently used first.
    case runtime
    /// Listed by a manifest and fetched by the precache runner; served cache-first.
    case precached
}
