/// The config's `queue`: which writes are queued while their origin cannot answer, how long they
/// are kept, and how replays back off (docs/SERVING.md, "Queued writes").
public struct WriteQueueConfiguration: Sendable {
    /// How long a queued write waits before it is dead-lettered when no retention is set: 7 days.
    public static let defaultRetention = Duration.seconds(7 * 86_400)

    /// `queue.routes`, in file order (the first matching a request applies).
    public var rules: [WriteQueueRule]
    /// `queue.retention`: how long a write may stay pending before it is dead-lettered.
    public var retention: Duration
    /// `queue.retry`: the wait between replays of an origin's failing head.
    public var backoff: ReplayBackoff
    /// `queue.maxWrites` and `queue.maxBytes`: how much the queue keeps.
    public var limits: WriteQueueLimits

    /// A configuration; the default queues nothing.
    public init(
        rules: [WriteQueueRule] = [], retention: Duration = Self.defaultRetention, backoff: ReplayBackoff = .standard,
        limits: WriteQueueLimits = WriteQueueLimits()
    ) {
        self.rules = rules
        self.retention = retention
        self.backoff = backoff
        self.limits = limits
    }

    /// The first rule that queues this request, or nil.
    public func rule(method: String, key: CacheKey, body: [UInt8]?) -> WriteQueueRule? {
        self.rules.first { $0.matches(method: method, key: key, body: body) }
    }
}
