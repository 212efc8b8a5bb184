import Foundation
import LarderStore

/// The offline write queue as /dev/offline, its JSON and `larder status` show it: per origin, its
/// pending writes (in delivery order) and dead letters, with what the replayer knows of the origin.
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
        /// Failed deliveries in a row (nil without a running proxy).
        public var consecutiveFailures: Int?
        /// When the replayer tries again (nil: at once, or without a running proxy).
        public var nextAttempt: Date?
        /// Its writes, pending first (in delivery order), then dead letters; at most ``shownPerOrigin``.
        public var writes: [Write]
    }

    /// How many writes of one origin the report lists (the counts cover all).
    public static let shownPerOrigin = 100

    public var pending: Int
    public var deadLetters: Int
    public var origins: [Origin]

    /// The report of `writes` (by id), with the replayer's state per origin when a proxy runs.
    public init(_ writes: [QueuedWrite], replay: [String: OriginReplayState]? = nil, now: Date) {
        var byOrigin: [String: [QueuedWrite]] = [:]
        for write in writes {
            byOrigin[write.origin, default: []].append(write)
        }
        self.origins = byOrigin.keys.sorted().map { origin in
            let all = byOrigin[origin] ?? []
            let pending = all.filter { $0.state == .pending }
            let dead = all.filter { $0.state == .deadLetter }
            let state = replay?[origin]
            return Origin(
                origin: origin,
                pending: pending.count,
                deadLetters: dead.count,
                consecutiveFailures: state?.consecutiveFailures,
                nextAttempt: state?.nextAttempt,
                writes: (pending + dead).prefix(Self.shownPerOrigin).map { Write($0, now: now) }
            )
        }
        self.pending = self.origins.reduce(0) { $0 + $1.pending }
        self.deadLetters = self.origins.reduce(0) { $0 + $1.deadLetters }
    }
}
