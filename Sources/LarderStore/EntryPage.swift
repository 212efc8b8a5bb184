/// One page of the entry list (see ``Store/listEntries(matching:sort:page:pageSize:)``).
public struct EntryPage: Sendable, Hashable, Codable {
    /// The entries on this page, in the order asked for.
    public var entries: [EntrySummary]
    /// The page number, from 1 (as applied: a page below 1 is read as 1).
    public var page: Int
    /// The most entries a page holds (as applied: clamped to 1...``Store/maximumPageSize``).
    public var pageSize: Int
    /// How many entries match (all entries without a search); with ``isTotalExact`` false, how many
    /// of the matches the pages hold.
    public var total: Int
    /// Whether a later page has entries.
    public var hasMore: Bool
    /// False when a search matched more than ``Store/searchResultLimit`` entries: ``total`` is that
    /// limit and the pages hold only the most recently added matches (say that more match and ask
    /// for a narrower search).
    public var isTotalExact: Bool
    /// True when the search text was shorter than ``Store/minimumSearchLength`` characters: nothing
    /// was searched and the page is empty. Show "type at least 3 characters".
    public var isQueryTooShort: Bool

    /// Creates a page.
    public init(
        entries: [EntrySummary],
        page: Int,
        pageSize: Int,
        total: Int,
        hasMore: Bool,
        isTotalExact: Bool = true,
        isQueryTooShort: Bool = false
    ) {
        self.entries = entries
        self.page = page
        self.pageSize = pageSize
        self.total = total
        self.hasMore = hasMore
        self.isTotalExact = isTotalExact
        self.isQueryTooShort = isQueryTooShort
    }
}
