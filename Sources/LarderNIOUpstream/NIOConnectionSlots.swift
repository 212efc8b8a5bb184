import Synchronization

/// Admits ``NIOUpstream`` transfers to a host (and to the client as a whole) up to its connection
/// limits, holding the rest in line until one ends.
///
/// AsyncHTTPClient queues requests beyond its per-host limit itself, but fails them once its
/// connect timeout has passed in the queue; curl's queued transfers wait for a connection as long
/// as they must. Admitting no more transfers than the pool may open keeps AsyncHTTPClient from
/// queueing at all, and gives ``UpstreamConfiguration/maxTotalConnections`` a meaning it lacks:
/// transfers in flight, everywhere (idle kept-alive connections are not counted).
final class NIOConnectionSlots: Sendable {
    private struct Waiter {
        var id: UInt64
        var host: String
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var perHost: [String: Int] = [:]
        var total = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let perHostLimit: Int
    private let totalLimit: Int
    private let state = Mutex(State())

    /// Limits of `perHost` transfers to one host and `total` in all; 0 is no limit.
    init(perHost: Int, total: Int) {
        self.perHostLimit = perHost == 0 ? .max : perHost
        self.totalLimit = total == 0 ? .max : total
    }

    /// Returns once a transfer to `host` may start.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled first.
    func acquire(host: String) async throws {
        let id = self.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = self.state.withLock { state -> Bool? in
                    guard !Task.isCancelled else { return false }
                    // Only a transfer to the same host waiting already goes first: one host at its
                    // limit never holds up another's.
                    if self.mayStart(host: host, state), !state.waiters.contains(where: { $0.host == host }) {
                        self.start(host: host, &state)
                        return true
                    }
                    state.waiters.append(Waiter(id: id, host: host, continuation: continuation))
                    return nil
                }
                switch admitted {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// How many transfers wait in line.
    var waiting: Int {
        self.state.withLock { $0.waiters.count }
    }

    /// A transfer to `host` has ended: the first waiter that may start now does.
    func release(host: String) {
        let admitted = self.state.withLock { state -> [Waiter] in
            let remaining = state.perHost[host, default: 1] - 1
            state.perHost[host] = remaining > 0 ? remaining : nil
            state.total -= 1
            var admitted: [Waiter] = []
            var index = 0
            while index < state.waiters.count {
                let waiter = state.waiters[index]
                if self.mayStart(host: waiter.host, state) {
                    self.start(host: waiter.host, &state)
                    admitted.append(state.waiters.remove(at: index))
                } else {
                    index += 1
                }
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    private func mayStart(host: String, _ state: State) -> Bool {
        state.total < self.totalLimit && state.perHost[host, default: 0] < self.perHostLimit
    }

    private func start(host: String, _ state: inout State) {
        state.perHost[host, default: 0] += 1
        state.total += 1
    }
}
