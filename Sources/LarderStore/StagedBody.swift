import LarderHTTP

/// A finished body to stage under a key (``Store/stage(_:)``): its writer, the response head it
/// came with, and what it is checked against first.
public struct StagedBody {
    /// The body, written whole; the stage ends it (committed, or discarded when a check fails).
    public var writer: BodyWriter
    /// The key the body is staged for.
    public var key: CacheKey
    /// The response head stored with it.
    public var head: StoredResponseHead
    /// The length upstream declared, when it did: a body of another length is not staged.
    public var expectedLength: Int64?
    /// The Workbox precache revision stored with it, if any.
    public var revision: String?
    /// The lower-case hex SHA-256 the body must hash to, if known.
    public var expectedHash: String?

    /// A body to stage.
    public init(
        writer: BodyWriter, key: CacheKey, head: StoredResponseHead, expectedLength: Int64?, revision: String? = nil,
        expectedHash: String? = nil
    ) {
        self.writer = writer
        self.key = key
        self.head = head
        self.expectedLength = expectedLength
        self.revision = revision
        self.expectedHash = expectedHash
    }
}
