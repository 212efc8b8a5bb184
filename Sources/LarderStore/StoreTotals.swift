/// Entry counts and the sum of their body sizes, kept by triggers as entries change, so reading them
/// costs the same for any cache size (see ``Store/totals()``).
///
/// Bytes are logical: an entry counts its body's size even when another entry shares that body file.
public struct StoreTotals: Sendable, Hashable, Codable {
    /// How many entries the index holds.
    public var entries: Int
    /// The sum of the body sizes of all entries.
    public var bytes: Int64
    /// How many entries are runtime entries.
    public var runtimeEntries: Int
    /// The sum of the body sizes of the runtime entries.
    public var runtimeBytes: Int64
    /// How many entries are precached (pinned).
    public var precachedEntries: Int
    /// The sum of the body sizes of the precached entries.
    public var precachedBytes: Int64

    /// Creates totals.
    public init(
        entries: Int,
        bytes: Int64,
        runtimeEntries: Int,
        runtimeBytes: Int64,
        precachedEntries: Int,
        precachedBytes: Int64
    ) {
        self.entries = entries
        self.bytes = bytes
        self.runtimeEntries = runtimeEntries
        self.runtimeBytes = runtimeBytes
        self.precachedEntries = precachedEntries
        self.precachedBytes = precachedBytes
    }

    /// Totals of an empty store.
    public static let zero = StoreTotals(
        entries: 0,
        bytes: 0,
        runtimeEntries: 0,
        runtimeBytes: 0,
        precachedEntries: 0,
        precachedBytes: 0
    )
}
