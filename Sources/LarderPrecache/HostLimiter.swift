import Foundation
import Synchronization

/// Politeness towards each host: at most `connectionsPerHost` requests at once, and at least
/// `spacing` between the starts of two requests to the same host.
///
/// Downloads start in plan order on each host: the runner says which plan positions go to which
/// host (``expect(_:)``), and a download's first request waits for its turn, so the first game is
/// ready first even when workers reach the limiter in another order. A retry has no turn to wait
/// for; a freed slot goes to the waiter earliest in the plan whose turn it is.
///
/// Starting in order is not arriving in order: a request that reuses a warm connection reaches
/// the origin long before one that waits for a new connection's handshake, so a free slot could
/// send many later files ahead of an earlier one (a series backlog arrived with day 22 after day
/// 13). So a download's first request also waits until it is fewer than `connectionsPerHost`
/// places after the earliest of the host's downloads that has no answer yet (``answered(_:position:)``):
/// no file arrives more than that many places out of order.
///
/// A lock, not an actor: a download that finds a slot free takes it without a hop to another
/// executor, and one that frees a slot hands it over in place (issue 33's per-file pipeline).
final class HostLimiter: Sendable {
    private struct Waiter {
        var position: Int
        /// Whether this is the download's first request (which starts in its turn).
        var firstStart: Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct HostState {
        var active = 0
        var nextStart = ContinuousClock.Instant.now
        /// Waiting requests by plan position (ties in arrival order).
        var waiters: [Waiter] = []
        /// Plan positions on this host that have not started yet, in order, from `head` on.
        var unstarted: [Int] = []
        var head = 0
        var unstartedSet: Set<Int> = []
        /// Each expected position's place among the host's downloads.
        var ordinals: [Int: Int] = [:]
        /// The places of downloads started whose answer has not begun.
        var unanswered: Set<Int> = []

        /// The position whose turn it is to start, if any is expected.
        var turn: Int? {
            self.head < self.unstarted.count ? self.unstarted[self.head] : nil
        }

        /// Whether a request at `position` may take a free slot now: its turn, and within `limit`
        /// places of the earliest download not answered yet.
        func mayStart(_ position: Int?, firstStart: Bool, limit: Int) -> Bool {
            guard firstStart else { return true }
            guard position == self.turn else { return false }
            guard let position, let ordinal = self.ordinals[position], let earliest = self.unanswered.min() else { return true }
            return ordinal - earliest < limit
        }

        mutating func started(_ position: Int) {
            self.unstartedSet.remove(position)
            if let ordinal = self.ordinals[position] { self.unanswered.insert(ordinal) }
            while let turn = self.turn, !self.unstartedSet.contains(turn) {
                self.head += 1
            }
        }

        /// Takes a free slot for a request at `position` when it may start now.
        mutating func take(_ position: Int?, firstStart: Bool, limit: Int) -> Bool {
            guard self.active < limit, self.mayStart(position, firstStart: firstStart, limit: limit) else { return false }
            self.active += 1
            if firstStart, let position { self.started(position) }
            return true
        }

        /// Takes a free slot as ``take(_:firstStart:limit:)`` does, or else queues `continuation`
        /// for ``grant(limit:)`` to resume.
        mutating func takeOrWait(_ position: Int?, firstStart: Bool, limit: Int, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
            if self.take(position, firstStart: firstStart, limit: limit) { return true }
            let order = position ?? -1
            let index = self.waiters.firstIndex { $0.position > order } ?? self.waiters.endIndex
            self.waiters.insert(Waiter(position: order, firstStart: firstStart, continuation: continuation), at: index)
            return false
        }

        /// Hands free slots to waiters that may start, earliest in the plan first; returns them.
        mutating func grant(limit: Int) -> [CheckedContinuation<Void, Never>] {
            var woken: [CheckedContinuation<Void, Never>] = []
            while self.active < limit,
                let index = self.waiters.firstIndex(where: { self.mayStart($0.position, firstStart: $0.firstStart, limit: limit) })
            {
                let waiter = self.waiters.remove(at: index)
                self.active += 1
                if waiter.firstStart { self.started(waiter.position) }
                woken.append(waiter.continuation)
            }
            return woken
        }
    }

    private let connectionsPerHost: Int
    private let spacing: Duration
    private let hosts = Mutex<[String: HostState]>([:])

    init(connectionsPerHost: Int, spacing: Duration) {
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.spacing = spacing
    }

    /// The plan's downloads: each position and its host, in plan order.
    func expect(_ downloads: [(host: String, position: Int)]) {
        self.hosts.withLock { hosts in
            for download in downloads {
                let ordinal = hosts[download.host, default: HostState()].unstarted.count
                hosts[download.host, default: HostState()].ordinals[download.position] = ordinal
                hosts[download.host, default: HostState()].unstarted.append(download.position)
                hosts[download.host, default: HostState()].unstartedSet.insert(download.position)
            }
        }
    }

    /// Waits for a slot on `host` (and, for a planned download's first request, for its turn),
    /// then for the spacing since the previous start. `position` is the request's place in the
    /// plan (nil: none, as for manifests).
    func acquire(_ host: String, position: Int? = nil) async {
        let limit = self.connectionsPerHost
        let (firstStart, took) = self.hosts.withLock { hosts in
            let firstStart = position.map { hosts[host, default: HostState()].unstartedSet.contains($0) } ?? false
            return (firstStart, hosts[host, default: HostState()].take(position, firstStart: firstStart, limit: limit))
        }
        if !took {
            await withCheckedContinuation { continuation in
                // Looked at again: a slot may have been freed since.
                let tookNow = self.hosts.withLock { hosts in
                    hosts[host, default: HostState()].takeOrWait(position, firstStart: firstStart, limit: limit, continuation)
                }
                if tookNow { continuation.resume() }
            }
        }
        guard self.spacing > .zero else { return }
        let now = ContinuousClock.Instant.now
        let start = self.hosts.withLock { hosts in
            let start = max(now, hosts[host, default: HostState()].nextStart)
            hosts[host, default: HostState()].nextStart = start + self.spacing
            return start
        }
        if start > now {
            try? await Task.sleep(until: start, clock: .continuous)
        }
    }

    /// The answer to the download at `position` on `host` has begun (or it ended): downloads
    /// further on may start.
    func answered(_ host: String, position: Int) {
        let limit = self.connectionsPerHost
        let woken = self.hosts.withLock { hosts -> [CheckedContinuation<Void, Never>] in
            guard let ordinal = hosts[host]?.ordinals[position], hosts[host]?.unanswered.remove(ordinal) != nil else { return [] }
            return hosts[host, default: HostState()].grant(limit: limit)
        }
        for continuation in woken {
            continuation.resume()
        }
    }

    /// Gives the slot back (of the download at `position`, which counts as answered); the waiter
    /// earliest in the plan that may start takes it over.
    func release(_ host: String, position: Int?) {
        let limit = self.connectionsPerHost
        let woken = self.hosts.withLock { hosts -> [CheckedContinuation<Void, Never>] in
            guard hosts[host] != nil else { return [] }
            hosts[host, default: HostState()].active -= 1
            if let position, let ordinal = hosts[host]?.ordinals[position] {
                hosts[host, default: HostState()].unanswered.remove(ordinal)
            }
            return hosts[host, default: HostState()].grant(limit: limit)
        }
        for continuation in woken {
            continuation.resume()
        }
    }
}
