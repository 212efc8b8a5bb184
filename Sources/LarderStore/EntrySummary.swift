import LarderHTTP

import struct Foundation.Date

/// What the entry list shows of one entry (see ``Store/listEntries(matching:sort:page:pageSize:)``).
public struct EntrySummary: Sendable, Hashable, Codable {
    /// The key the entry is stored under.
    public var key: CacheKey
    /// The URL as it was requested (fragment removed), for display.
    public var url: String
    /// The response status code.
    public var status: Int
    /// The stored `Content-Type`, or nil when the response had none.
    public var contentType: String?
    /// The body's length in bytes.
    public var bodySize: Int64
    /// Whether the entry was kept at run time or precached.
    public var kind: EntryKind
    /// When the entry was written to the index.
    public var storedAt: Date
    /// When the entry was last served (see ``Store/recordUse(_:)``); its store time until then.
    public var lastUsed: Date

    /// Creates an entry summary.
    public init(
        key: CacheKey,
        url: String,
        status: Int,
        contentType: String?,
        bodySize: Int64,
        kind: EntryKind,
        storedAt: Date,
        lastUsed: Date
    ) {
        self.key = key
        self.url = url
        self.status = status
        self.contentType = contentType
        self.bodySize = bodySize
        self.kind = kind
        self.storedAt = storedAt
        self.lastUsed = lastUsed
    }
}
