/// Totals over the store's index.
public struct StoreStatistics: Sendable, Hashable {
    /// How many entries the index holds.
    public var entries: Int
    /// How many distinct body files the entries reference (equal bodies are stored once).
    public var bodies: Int
    /// The bytes of those distinct body files: what the bodies take on disk.
    public var bodyBytes: Int64

    /// Creates statistics.
    public init(entries: Int, bodies: Int, bodyBytes: Int64) {
        self.entries = entries
        self.bodies = bodies
        self.bodyBytes = bodyBytes
    }
}
