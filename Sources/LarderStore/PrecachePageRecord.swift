import LarderHTTP

import struct Foundation.Date

/// A page games.txt lists (a `.html` line), and what became of it (see ``Store/savePages(_:)``).
public struct PrecachePageRecord: Sendable, Hashable {
    /// The key the page is stored under.
    public var key: CacheKey
    /// The URL as listed (fragment removed), for display.
    public var url: String
    /// Whether it was cached, failed, excluded or refused.
    public var state: ListedFileState
    /// Why it failed or was refused, or nil.
    public var reason: String?
    /// When it was last precached.
    public var lastRun: Date

    /// Creates a page record.
    public init(key: CacheKey, url: String, state: ListedFileState, reason: String? = nil, lastRun: Date) {
        self.key = key
        self.url = url
        self.state = state
        self.reason = reason
        self.lastRun = lastRun
    }
}
