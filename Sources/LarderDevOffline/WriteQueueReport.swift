import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

/// The offline write queue as /dev/offline, its JSON and `larder status` show it: its counts and
/// bytes per origin, with what the replayer knows of the origin, and one page of its writes
/// (docs/SERVING.md, "Write queue limits").
public struct WriteQueueReport: Sendable, Codable {
    /// One queued write.
    public struct Write: Sendable, Codable {
        public var id: Int64
        public var method: String
        public var url: String
        /// `pending` or `dead-letter`.
        public var state: String
        public var createdAt: Date
        public var ageSeconds: Int
        public var attempts: Int
        public var lastAttempt: Date?
        public var lastError: String?
        /// Why it will not be retried automatically (a dead letter).
        public var deadReason: String?
        public var bodySize: Int64
        /// Whether it is a terminal write (a completion: never superseded).
        public var terminal: Bool

        init(_ write: QueuedWrite, now: Date) {
            self.id = write.id
            self.method = write.method
            self.url = write.url
            self.state = write.state.rawValue
            self.createdAt = write.createdAt
            self.ageSeconds = max(0, Int(now.timeIntervalSince(write.createdAt)))
            self.attempts = write.attempts
            self.lastAttempt = write.lastAttempt
            self.lastError = write.lastError
            self.deadReason = write.deadReason
            self.bodySize = write.bodySize
            self.terminal = write.terminal
        }
    }

    /// One origin's queue.
    public struct Origin: Sendable, Codable {
        public var origin: String
        public var pending: Int
        public var deadLetters: Int
        /// The body bytes of its writes, pending and dead-lettered (optional, so that `larder
        /// status` reads the report of a proxy older than the queue's limits).
        public var bytes: Int64?
        /// Failed deliveries in a row (nil without a running proxy).
        public var consecutiveFailures: Int?
        /// When the replayer tries again (nil: at once, or without a running proxy).
        public var nextAttempt: Date?
        /// Its writes on this page, pending first (in delivery order), then dead letters.
        public var writes: [Write]
    }

    /// How many writes a page lists (the counts cover all).
    public static let pageSize = 50

    public var pending: Int
    public var deadLetters: Int
    /// The body bytes of every kept write, pending and dead-lettered (the queue's own budget,
    /// apart from the store's; optional as ``Origin/bytes``).
    public var bytes: Int64?
    /// `queue.maxWrites` (nil when the report was made without the config).
    public var maxWrites: Int?
    /// `queue.maxBytes` (nil when the report was made without the config).
    public var maxBytes: Int64?
    /// This page lists the writes after this id, by id (nil: from the first).
    public var after: Int64?
    /// The id to ask the next page after (`/dev/offline?writesAfter=ID`); nil on the last page.
    public var nextAfter: Int64?
    /// Every origin with kept writes, by origin, each with its writes on this page.
    public var origins: [Origin]

    /// The report of the queue's counters `totals` with the writes of one page (by id, after
    /// `after`), and the replayer's state per origin when a proxy runs.
    public init(
        totals: [QueuedWriteTotal], page: [QueuedWrite], after: Int64? = nil, hasMore: Bool = false, limits: WriteQueueLimits? = nil,
        replay: [String: OriginReplayState]? = nil, now: Date
    ) {
        var byOrigin: [String: [QueuedWrite]] = [:]
        for write in page {
            byOrigin[write.origin, default: []].append(write)
        }
        let totalsByOrigin = Dictionary(grouping: totals, by: \.origin)
        self.origins = Set(totalsByOrigin.keys).union(byOrigin.keys).sorted().map { origin in
            let counts = totalsByOrigin[origin] ?? []
            let listed = byOrigin[origin] ?? []
            let state = replay?[origin]
            return Origin(
                origin: origin,
                pending: counts.filter { $0.state == .pending }.reduce(0) { $0 + $1.writes },
                deadLetters: counts.filter { $0.state == .deadLetter }.reduce(0) { $0 + $1.writes },
                bytes: counts.reduce(0) { $0 + $1.bytes },
                consecutiveFailures: state?.consecutiveFailures,
                nextAttempt: state?.nextAttempt,
                writes: (listed.filter { $0.state == .pending } + listed.filter { $0.state == .deadLetter }).map { Write($0, now: now) }
            )
        }
        self.pending = self.origins.reduce(0) { $0 + $1.pending }
        self.deadLetters = self.origins.reduce(0) { $0 + $1.deadLetters }
        self.bytes = self.origins.reduce(0) { $0 + ($1.bytes ?? 0) }
        self.maxWrites = limits?.maxWrites
        self.maxBytes = limits?.maxBytes
        self.after = after
        self.nextAfter = hasMore ? page.last?.id : nil
    }

    /// Reads one page of the queue from `store`: its counters and at most `pageSize` writes after
    /// `after`, from the primary key; nothing in proportion to the queue.
    public static func read(
        from store: Store, after: Int64? = nil, pageSize: Int = Self.pageSize, limits: WriteQueueLimits? = nil,
        replay: [String: OriginReplayState]? = nil, now: Date
    ) async throws -> WriteQueueReport {
        let totals = try await store.queuedWriteTotals()
        let writes = try await store.queuedWrites(after: after, limit: pageSize + 1)
        return WriteQueueReport(
            totals: totals, page: Array(writes.prefix(pageSize)), after: after, hasMore: writes.count > pageSize, limits: limits,
            replay: replay, now: now)
    }
}
