/// Totals over the store's index.
public struct StoreStatistics: Sendable, Hashable {
    /// How many entries the index holds.
    public var entries: Int
    /// How many distinct body files the entries reference (equal bodies are stored once).
    public var bodies: Int
    /// The bytes of those distinct body files: what the bodies take on disk.
    public var bodyBytes: Int64
    /// How many entries are precached (pinned).
    public var precachedEntries: Int
    /// The sum of the body sizes of the precached entries (a body two of them share counts twice).
    public var precachedBytes: Int64

    /// Creates statistics.
    public init(entries: Int, bodies: Int, bodyBytes: Int64, precachedEntries: Int = 0, precachedBytes: Int64 = 0) {
        self.entries = entries
        self.bodies = bodies
        self.bodyBytes = bodyBytes
        self.precachedEntries = precachedEntries
        self.precachedBytes = precachedBytes
    }
}
