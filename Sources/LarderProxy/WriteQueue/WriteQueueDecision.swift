import LarderHTTP

/// Whether a write a queue rule covers is queued or sent and relayed (docs/SERVING.md, "Queued
/// writes"): pure, so every path is tested without sockets.
enum WriteQueueDecision {
    /// What a first attempt at sending the write came to.
    enum Attempt: Sendable, Equatable {
        /// No answer: the connection failed, broke, or no response head came within the network timeout.
        case unanswered
        /// The origin answered with this status.
        case answered(status: Int)
    }

    /// Whether the write is queued without trying the network: in offline mode, while the origin is
    /// backing off, and while older writes to the origin wait (sending this one first would
    /// overtake them).
    static func queuesAtOnce(offline: Bool, backingOff: Bool, originHasPending: Bool) -> Bool {
        offline || backingOff || originHasPending
    }

    /// Whether the write is queued after `attempt`: when unanswered, and on a 5xx only when the rule
    /// says so (a 5xx is otherwise the origin's answer, relayed: taking it for a success, or
    /// replaying a write the origin may have applied, is what loses data).
    static func queues(after attempt: Attempt, queueOn5xx: Bool) -> Bool {
        switch attempt {
        case .unanswered: true
        case .answered(let status): queueOn5xx && (500..<600).contains(status)
        }
    }
}

extension WriteQueueConfiguration {
    /// Whether some rule may queue a request with `method` for the URL with `key`, its body unseen:
    /// then the body is read whole to decide (a rule's `when` looks into it).
    func mayQueue(method: String, key: CacheKey) -> Bool {
        self.rules.contains { $0.methods.contains(method) && $0.pattern.matches(key) }
    }
}
