/// How much the write queue keeps (the config's `queue.maxWrites` and `queue.maxBytes`): every
/// kept write counts, pending or dead-lettered, since each holds its body on disk until it is
/// delivered or dropped. Its own limit, apart from `--max-size` (docs/SERVING.md, "Write queue
/// limits").
public struct WriteQueueLimits: Sendable, Hashable {
    /// The most writes kept when the config sets none.
    public static let defaultMaxWrites = 1000
    /// The most body bytes kept when the config sets none: 64 MiB.
    public static let defaultMaxBytes: Int64 = 64 << 20

    /// The most writes kept.
    public var maxWrites: Int
    /// The most body bytes kept, summed over the writes.
    public var maxBytes: Int64

    /// Limits; the defaults are 1,000 writes and 64 MiB.
    public init(maxWrites: Int = Self.defaultMaxWrites, maxBytes: Int64 = Self.defaultMaxBytes) {
        self.maxWrites = maxWrites
        self.maxBytes = maxBytes
    }

    /// Which limit a write of `size` bytes would pass with `writes` writes of `bytes` bytes
    /// already kept (those it replaces not counted), or nil when it fits.
    public func exceeded(writes: Int, bytes: Int64, adding size: Int64) -> Exceeded? {
        if writes >= self.maxWrites {
            return .writes(limit: self.maxWrites)
        }
        if size > self.maxBytes - bytes {
            return .bytes(limit: self.maxBytes)
        }
        return nil
    }

    /// A limit a write would pass.
    public enum Exceeded: Sendable, Hashable, CustomStringConvertible {
        /// `maxWrites`, this many.
        case writes(limit: Int)
        /// `maxBytes`, this many bytes.
        case bytes(limit: Int64)

        /// Says which limit, with its config key.
        public var description: String {
            switch self {
            case .writes(let limit):
                "the write queue is full: it keeps at most \(limit) writes (queue.maxWrites)"
            case .bytes(let limit):
                "the write queue is full: it keeps at most \(limit) bytes of bodies (queue.maxBytes)"
            }
        }
    }
}
