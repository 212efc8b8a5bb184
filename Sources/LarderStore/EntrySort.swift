/// The order of ``Store/listEntries(matching:sort:page:pageSize:)``; each is read from an index.
public enum EntrySort: String, Sendable, CaseIterable, Codable {
    /// Most recently stored first (`stored_at` descending; ties newest row first).
    case recent
    /// Largest body first (`body_size` descending; ties newest row first).
    case size
    /// By cache key (the normalised URL), ascending.
    case url
}
