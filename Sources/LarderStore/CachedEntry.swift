import LarderHTTP

import struct Foundation.Date

/// One stored response, as read back from the index.
public struct CachedEntry: Sendable {
    /// The key the entry is stored under.
    public let key: CacheKey
    /// The URL as it was requested (fragment removed), for display.
    public let url: String
    /// The response status code.
    public let status: Int
    /// The stored end-to-end response headers, in wire order.
    public let headers: [HeaderField]
    /// The request header values the response's `Vary` named when it was stored.
    public let varyRequestHeaders: [HeaderField]
    /// Whether the entry was kept at run time or precached.
    public let kind: EntryKind
    /// The lower-case hex SHA-256 of the body.
    public let bodyHash: String
    /// The body's length in bytes.
    public let bodySize: Int64
    /// The absolute path of the content-addressed body file.
    public let bodyPath: String
    /// When the request was sent upstream.
    public let requestTime: Date
    /// When the response head arrived.
    public let responseTime: Date
    /// When the entry was written to the index.
    public let storedAt: Date
    /// The Workbox precache revision the body was fetched for, or nil when none was given.
    public let revision: String?

    /// Creates an entry value (the store creates these; tests of other modules may too).
    public init(
        key: CacheKey,
        url: String,
        status: Int,
        headers: [HeaderField],
        varyRequestHeaders: [HeaderField],
        kind: EntryKind,
        bodyHash: String,
        bodySize: Int64,
        bodyPath: String,
        requestTime: Date,
        responseTime: Date,
        storedAt: Date,
        revision: String? = nil
    ) {
        self.key = key
        self.url = url
        self.status = status
        self.headers = headers
        self.varyRequestHeaders = varyRequestHeaders
        self.kind = kind
        self.bodyHash = bodyHash
        self.bodySize = bodySize
        self.bodyPath = bodyPath
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.storedAt = storedAt
        self.revision = revision
    }

    /// The first value of the header `name` (ASCII case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.hasName(name) }?.value
    }
}
