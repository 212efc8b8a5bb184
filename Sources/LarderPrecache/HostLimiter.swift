import Foundation

/// Politeness towards each host: at most `connectionsPerHost` requests at once, and at least
/// `spacing` between the starts of two requests to the same host.
///
/// Downloads start in plan order on each host: the runner says which plan positions go to which
/// host (``expect(_:)``), and a download's first request waits for its turn, so the first game is
/// ready first even when workers reach the limiter in another order. A retry has no turn to wait
/// for; a freed slot goes to the waiter earliest in the plan whose turn it is.
actor HostLimiter {
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

        /// The position whose turn it is to start, if any is expected.
        var turn: Int? {
            self.head < self.unstarted.count ? self.unstarted[self.head] : nil
        }

        /// Whether a request at `position` may take a free slot now.
        func mayStart(_ position: Int?, firstStart: Bool) -> Bool {
            !firstStart || position == self.turn
        }

        mutating func started(_ position: Int) {
            self.unstartedSet.remove(position)
            while let turn = self.turn, !self.unstartedSet.contains(turn) {
                self.head += 1
            }
        }
    }

    private let connectionsPerHost: Int
    private let spacing: Duration
    private var hosts: [String: HostState] = [:]

    init(connectionsPerHost: Int, spacing: Duration) {
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.spacing = spacing
    }

    /// The plan's downloads: each position and its host, in plan order.
    func expect(_ downloads: [(host: String, position: Int)]) {
        for download in downloads {
            self.hosts[download.host, default: HostState()].unstarted.append(download.position)
            self.hosts[download.host, default: HostState()].unstartedSet.insert(download.position)
        }
    }

    /// Waits for a slot on `host` (and, for a planned download's first request, for its turn),
    /// then for the spacing since the previous start. `position` is the request's place in the
    /// plan (nil: none, as for manifests).
    func acquire(_ host: String, position: Int? = nil) async {
        var state = self.hosts[host, default: HostState()]
        let firstStart = position.map { state.unstartedSet.contains($0) } ?? false
        if state.active < self.connectionsPerHost, state.mayStart(position, firstStart: firstStart) {
            state.active += 1
            if firstStart, let position { state.started(position) }
            self.hosts[host] = state
            self.grant(host)
        } else {
            await withCheckedContinuation { continuation in
                var waiters = self.hosts[host, default: HostState()].waiters
                let order = position ?? -1
                let index = waiters.firstIndex { $0.position > order } ?? waiters.endIndex
                waiters.insert(Waiter(position: order, firstStart: firstStart, continuation: continuation), at: index)
                self.hosts[host, default: HostState()].waiters = waiters
            }
        }
        guard self.spacing > .zero else { return }
        let now = ContinuousClock.Instant.now
        let start = max(now, self.hosts[host, default: HostState()].nextStart)
        self.hosts[host, default: HostState()].nextStart = start + self.spacing
        if start > now {
            try? await Task.sleep(until: start, clock: .continuous)
        }
    }

    /// Gives the slot back; the waiter earliest in the plan that may start takes it over.
    func release(_ host: String) {
        guard self.hosts[host] != nil else { return }
        self.hosts[host]?.active -= 1
        self.grant(host)
    }

    /// Hands free slots to waiters that may start, earliest in the plan first.
    private func grant(_ host: String) {
        guard var state = self.hosts[host] else { return }
        var woken: [CheckedContinuation<Void, Never>] = []
        while state.active < self.connectionsPerHost,
            let index = state.waiters.firstIndex(where: { state.mayStart($0.position, firstStart: $0.firstStart) })
        {
            let waiter = state.waiters.remove(at: index)
            state.active += 1
            if waiter.firstStart { state.started(waiter.position) }
            woken.append(waiter.continuation)
        }
        self.hosts[host] = state
        for continuation in woken {
            continuation.resume()
        }
    }
}
