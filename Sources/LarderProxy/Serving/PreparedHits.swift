import LarderHTTP
import LarderStore
import NIOCore
import Synchronization

/// Recent plain hits with their answers serialised up to the headers that change per request
/// (`Age`, `Cache-Status`, `Connection`), by request target, shared by every connection.
///
/// A prepared hit holds exactly as long as the store's remembered lookup it was made from (no
/// commit since, and within the memo's trust window), so it never serves what the store would
/// not: a purge, a new copy or another process's write ends it as it would end the lookup.
final class PreparedHits: Sendable {
    /// One prepared answer.
    struct Hit: Sendable {
        /// The target's host and port, to keep requests for the proxy itself off this path.
        var host: String
        var port: Int
        /// The entry's key, for its last-used time.
        var key: CacheKey
        /// `name: value\r\n` for every header of the answer but the per-request ones.
        var headerBlock: ByteBuffer
        var body: Body
        /// The stored `Content-Encoding`, which a client must accept for the body to go as is.
        var contentEncoding: [String]
        var freshness: ResponseFreshness
        /// The plainest request's context under the strategy the ordinary path would serve it by
        /// (``CacheTransaction/plainContext(_:)``).
        var context: CacheDecision.Context
        /// Whether the entry was precached (its hit says so).
        var precached: Bool
        /// How long the lookup behind it holds.
        var validity: RememberedLookup.Validity
    }

    /// Where a prepared answer's body comes from.
    enum Body: Sendable {
        /// A small body, held in memory.
        case memory(ByteBuffer)
        /// A larger body, sent from its file by the kernel (`sendfile`): no copy through Larder.
        case file(path: String, size: Int64)

        /// The bytes this body holds in memory.
        var bytesInMemory: Int {
            if case .memory(let buffer) = self { buffer.readableBytes } else { 0 }
        }
    }

    private struct Table {
        var hits: [String: Hit] = [:]
        var bodyBytes = 0
    }

    /// At most this many targets are held; when full, the table starts over (cheap, and bounded).
    static let capacity = 1024
    /// At most this many body bytes are held (most are shared with the small-body cache).
    static let maximumBodyBytes = 16 << 20

    private let table = Mutex(Table())

    /// The prepared hit for `target`, if any (the caller checks that it still holds).
    func hit(for target: String) -> Hit? {
        self.table.withLock { $0.hits[target] }
    }

    /// Keeps `hit` for `target`.
    func insert(_ hit: Hit, for target: String) {
        self.table.withLock { table in
            if table.hits.count >= Self.capacity || table.bodyBytes + hit.body.bytesInMemory > Self.maximumBodyBytes {
                table = Table()
            }
            if let replaced = table.hits.updateValue(hit, forKey: target) {
                table.bodyBytes -= replaced.body.bytesInMemory
            }
            table.bodyBytes += hit.body.bytesInMemory
        }
    }
}
