import LarderHTTP
import LarderStore
import Synchronization

/// Upstream fetches in flight, by cache key, so that concurrent misses for one key make one
/// upstream request: the first request leads (fetches and stores), the others follow (wait for
/// the leader's commit, then answer from the store).
final class InFlightFetches: Sendable {
    /// A request's part in a fetch.
    enum Role {
        /// Fetch, say when the answer's head came (``Flight/answerBegan()``), and call
        /// ``InFlightFetches/finish(_:flight:stored:)`` when done, whatever happens.
        case leader(Flight)
        /// Wait for the leader with ``Flight/wait(stallTimeout:)``; `joinedAfterAnswerBegan` when
        /// its answer's head had come already.
        case follower(Flight, joinedAfterAnswerBegan: Bool)
        /// Fetch without a flight: nobody follows.
        case alone
    }

    private let flights = Mutex<[CacheKey: Flight]>([:])

    /// Follows the fetch for `key` in flight (counted among its followers until its
    /// ``Flight/wait(stallTimeout:)`` returns); when there is none, leads a new one if `mayLead`,
    /// else fetches alone.
    func join(_ key: CacheKey, mayLead: Bool = true) -> Role {
        self.flights.withLock { flights in
            if let flight = flights[key] {
                return .follower(flight, joinedAfterAnswerBegan: flight.follow())
            }
            guard mayLead else { return .alone }
            let flight = Flight()
            flights[key] = flight
            return .leader(flight)
        }
    }

    /// Ends the leader's fetch: later misses start a new one, and followers wake up.
    /// - Parameter stored: whether the leader committed an entry for the key.
    func finish(_ key: CacheKey, flight: Flight, stored: Bool) {
        self.flights.withLock { flights in
            if flights[key] === flight {
                flights[key] = nil
            }
        }
        flight.complete(stored: stored)
    }

    /// How many fetches are in flight (for tests).
    var count: Int {
        self.flights.withLock { $0.count }
    }
}

/// One leader's fetch, which followers wait on.
final class Flight: Sendable {
    private struct State {
        var stored: Bool?
        var answerBegan = false
        /// When the leader last received part of its answer.
        var lastProgress: ContinuousClock.Instant?
        /// Requests that joined and have not stopped waiting.
        var followers = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// The leader's answer head has come: requests joining from now on did not ask before it.
    func answerBegan() {
        self.state.withLock {
            $0.answerBegan = true
            $0.lastProgress = .now
        }
    }

    /// The leader received more of its answer's body: followers keep waiting while it does.
    func progressed() {
        self.state.withLock { $0.lastProgress = .now }
    }

    /// Whether a request follows the leader and still waits for it.
    var hasFollowers: Bool {
        self.state.withLock { $0.followers > 0 }
    }

    /// Counts one more follower; returns whether the leader's answer had begun (``answerBegan()``).
    fileprivate func follow() -> Bool {
        self.state.withLock { state in
            state.followers += 1
            return state.answerBegan
        }
    }

    /// How many stall timeouts in all a follower waits at most, however steadily the body comes:
    /// a leader's slow client (the relay reads upstream as fast as its client takes the bytes) or
    /// an endless stream must not hold the others for long.
    static let longestWaitInStallTimeouts = 5

    /// Whether the leader stored an entry; false when it did not, when the leader's fetch stalls
    /// (neither its head nor more of its body for a `stallTimeout`, noticed within two), when
    /// ``longestWaitInStallTimeouts`` pass, or when the task is cancelled first: the follower then
    /// fetches for itself, so it never hangs. A large body that keeps arriving is waited for
    /// (the followers' alternative is to download it again, each). Call once per ``InFlightFetches/join(_:mayLead:)``
    /// that made this request a follower.
    func wait(stallTimeout: Duration) async -> Bool {
        defer { self.state.withLock { $0.followers -= 1 } }
        let deadline = ContinuousClock.now + stallTimeout * Self.longestWaitInStallTimeouts
        while true {
            let waited = ContinuousClock.now
            let outcome = await withTaskGroup(of: Bool?.self) { group in
                group.addTask { await self.outcome() }
                group.addTask {
                    try? await Task.sleep(for: stallTimeout)
                    return nil
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if let outcome {
                return outcome
            }
            let progressed = self.state.withLock { state in state.lastProgress.map { $0 > waited } ?? false }
            guard progressed, ContinuousClock.now < deadline, !Task.isCancelled else { return false }
        }
    }

    /// Wakes every follower with the leader's result; only the first call counts.
    func complete(stored: Bool) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard state.stored == nil else { return [] }
            state.stored = stored
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(returning: stored)
        }
    }

    /// The leader's result; false at once when the task is cancelled.
    private func outcome() async -> Bool {
        let id = self.state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = self.state.withLock { state -> Bool? in
                    if let stored = state.stored { return stored }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }
}
