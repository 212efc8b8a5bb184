import Foundation

/// Politeness towards each host: at most `connectionsPerHost` requests at once, and at least
/// `spacing` between the starts of two requests to the same host. A freed slot goes to the
/// waiter earliest in the plan, so downloads start in plan order even when more of them wait
/// than the host has slots.
actor HostLimiter {
    private struct HostState {
        var active = 0
        var nextStart = ContinuousClock.Instant.now
        /// Waiting requests by plan position (ties in arrival order).
        var waiters: [(position: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let connectionsPerHost: Int
    private let spacing: Duration
    private var hosts: [String: HostState] = [:]

    init(connectionsPerHost: Int, spacing: Duration) {
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.spacing = spacing
    }

    /// Waits for a slot on `host`, then for the spacing since the previous start. `position` is
    /// the request's place in the plan: lower positions get freed slots first.
    func acquire(_ host: String, position: Int = 0) async {
        if self.hosts[host, default: HostState()].active >= self.connectionsPerHost {
            await withCheckedContinuation { continuation in
                var waiters = self.hosts[host, default: HostState()].waiters
                let index = waiters.firstIndex { $0.position > position } ?? waiters.endIndex
                waiters.insert((position, continuation), at: index)
                self.hosts[host, default: HostState()].waiters = waiters
            }
        } else {
            self.hosts[host, default: HostState()].active += 1
        }
        guard self.spacing > .zero else { return }
        let now = ContinuousClock.Instant.now
        let start = max(now, self.hosts[host, default: HostState()].nextStart)
        self.hosts[host, default: HostState()].nextStart = start + self.spacing
        if start > now {
            try? await Task.sleep(until: start, clock: .continuous)
        }
    }

    /// Gives the slot back; a waiter takes it over directly.
    func release(_ host: String) {
        guard var state = self.hosts[host] else { return }
        if state.waiters.isEmpty {
            state.active -= 1
            self.hosts[host] = state
        } else {
            let next = state.waiters.removeFirst()
            self.hosts[host] = state
            next.continuation.resume()
        }
    }
}
