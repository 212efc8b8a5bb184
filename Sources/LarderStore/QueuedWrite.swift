import Foundation
import LarderHTTP

/// A write the proxy accepted while its origin could not answer, waiting to be replayed
/// (docs/FORMATS.md, "Write queue").
public struct QueuedWrite: Sendable, Hashable {
    /// Whether a write is still to be delivered.
    public enum State: String, Sendable {
        /// Waiting for its turn (or being delivered, ``QueuedWrite/inFlight``).
        case pending
        /// Refused by the origin or expired: kept and shown, never retried automatically.
        case deadLetter = "dead-letter"
    }

    /// Increasing in the order of arrival; never reused.
    public var id: Int64
    /// `scheme://host[:port]`, as ``HTTPURL/origin`` gives it: writes are replayed in order per origin.
    public var origin: String
    public var method: String
    public var url: String
    /// The headers as they are to be sent (hop-by-hop and `Proxy-*` removed, `Idempotency-Key` present).
    public var headers: [HeaderField]
    public var bodySize: Int64
    /// What identifies "the same thing" (``WriteQueueRule/supersedeValue(url:headers:body:filter:)``).
    public var supersedeKey: String?
    /// A completion: it supersedes pending non-terminal writes with the same key and is never superseded.
    public var terminal: Bool
    /// Who queued it (``AnswerOwner/digest``); nil for a write queued before owners were recorded.
    public var owner: String?
    public var createdAt: Date
    /// Deliveries begun so far.
    public var attempts: Int
    public var lastAttempt: Date?
    /// Why the last delivery failed.
    public var lastError: String?
    public var state: State
    /// Why it was dead-lettered.
    public var deadReason: String?
    /// Whether a delivery is under way (``Store/beginDelivery(id:at:)``): supersede rules leave it alone.
    public var inFlight: Bool

    /// A write as the store holds it.
    public init(
        id: Int64,
        origin: String,
        method: String,
        url: String,
        headers: [HeaderField],
        bodySize: Int64,
        supersedeKey: String?,
        terminal: Bool,
        owner: String? = nil,
        createdAt: Date,
        attempts: Int = 0,
        lastAttempt: Date? = nil,
        lastError: String? = nil,
        state: State = .pending,
        deadReason: String? = nil,
        inFlight: Bool = false
    ) {
        self.id = id
        self.origin = origin
        self.method = method
        self.url = url
        self.headers = headers
        self.bodySize = bodySize
        self.supersedeKey = supersedeKey
        self.terminal = terminal
        self.owner = owner
        self.createdAt = createdAt
        self.attempts = attempts
        self.lastAttempt = lastAttempt
        self.lastError = lastError
        self.state = state
        self.deadReason = deadReason
        self.inFlight = inFlight
    }
}

/// A write to queue (``Store/enqueueWrite(_:)``).
public struct NewQueuedWrite: Sendable {
    public var origin: String
    public var method: String
    public var url: String
    public var headers: [HeaderField]
    public var body: [UInt8]
    public var supersedeKey: String?
    public var terminal: Bool
    /// Who queues it (``AnswerOwner/digest``).
    public var owner: String?
    public var createdAt: Date

    /// A write to queue.
    public init(
        origin: String,
        method: String,
        url: String,
        headers: [HeaderField],
        body: [UInt8],
        supersedeKey: String? = nil,
        terminal: Bool = false,
        owner: String? = nil,
        createdAt: Date = Date()
    ) {
        self.origin = origin
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.supersedeKey = supersedeKey
        self.terminal = terminal
        self.owner = owner
        self.createdAt = createdAt
    }
}

/// How many writes of one origin in one state the queue keeps, and their body bytes
/// (``Store/queuedWriteTotals()``).
public struct QueuedWriteTotal: Sendable, Hashable {
    public var origin: String
    public var state: QueuedWrite.State
    public var writes: Int
    public var bytes: Int64

    /// A total.
    public init(origin: String, state: QueuedWrite.State, writes: Int, bytes: Int64) {
        self.origin = origin
        self.state = state
        self.writes = writes
        self.bytes = bytes
    }
}
