import NIOCore
import Synchronization

/// Bookkeeping for one client connection: graceful shutdown (an idle connection, between
/// requests, closes at once; a busy one finishes its response first) and room for others (a
/// connection waiting for a request may be closed when the limits are reached).
final class ConnectionLifecycle: Sendable {
    private struct State {
        var isIdle = true
        var isShuttingDown = false
        /// Since when the connection has waited for a request with no byte of it (nil: it has not).
        var waitingSince: NIODeadline?
    }

    private let state = Mutex(State())
    private let channel: any Channel
    /// The client's address without its port: what the per-client limit counts.
    let client: String

    init(channel: any Channel, client: String) {
        self.channel = channel
        self.client = client
    }

    /// Whether graceful shutdown has begun.
    var isShuttingDown: Bool {
        self.state.withLock { $0.isShuttingDown }
    }

    /// Since when the connection has waited for a request, if it does.
    var waitingSince: NIODeadline? {
        self.state.withLock { $0.waitingSince }
    }

    /// Marks the connection idle (its task waits for a request) or busy.
    func setIdle(_ idle: Bool) {
        let close = self.state.withLock { state in
            state.isIdle = idle
            return idle && state.isShuttingDown
        }
        if close {
            self.channel.close(promise: nil)
        }
    }

    /// Records whether the connection waits for a request with no byte of it, and since when.
    func setWaitingForRequest(since: NIODeadline?) {
        self.state.withLock { $0.waitingSince = since }
    }

    /// Closes the connection to make room for another; it was waiting for a request, so nothing
    /// is cut off (a client may always find a kept-alive connection closed).
    func evict() {
        self.channel.close(promise: nil)
    }

    /// Begins graceful shutdown for this connection.
    func shutdown() {
        let close = self.state.withLock { state in
            state.isShuttingDown = true
            return state.isIdle
        }
        if close {
            self.channel.close(promise: nil)
        }
    }
}

/// The live connections of a server: graceful shutdown reaches them, and ``admit(_:client:limits:)``
/// keeps their number within the limits.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ConnectionLifecycle] = [:]
        var perClient: [String: Int] = [:]
        var isShuttingDown = false

        mutating func remove(_ lifecycle: ConnectionLifecycle) -> Bool {
            guard self.connections.removeValue(forKey: ObjectIdentifier(lifecycle)) != nil else { return false }
            let remaining = (self.perClient[lifecycle.client] ?? 1) - 1
            self.perClient[lifecycle.client] = remaining > 0 ? remaining : nil
            return true
        }

        /// The connection that has waited longest for a request, among `client`'s (or all), other
        /// than `excluded`.
        func longestWaiting(client: String?, excluding excluded: ConnectionLifecycle? = nil) -> ConnectionLifecycle? {
            var oldest: ConnectionLifecycle?
            var oldestSince = NIODeadline.distantFuture
            for lifecycle in self.connections.values where client == nil || lifecycle.client == client {
                guard lifecycle !== excluded, let since = lifecycle.waitingSince, since < oldestSince else { continue }
                oldest = lifecycle
                oldestSince = since
            }
            return oldest
        }
    }

    /// Whether a new connection may be served.
    enum Admission {
        case admitted(ConnectionLifecycle)
        case refused(reason: String)
    }

    private let state = Mutex(State())

    /// How many connections are tracked.
    var count: Int {
        self.state.withLock { $0.connections.count }
    }

    /// Tracks a new connection from `client`, closing the connection that has waited longest for a
    /// request when a limit is reached (the client's own first); refuses it when every connection
    /// at the limit is busy.
    func admit(_ channel: any Channel, client: String, limits: ConnectionCounts) -> Admission {
        let lifecycle = ConnectionLifecycle(channel: channel, client: client)
        let (admission, evicted, shuttingDown) = self.state.withLock { state -> (Admission, [ConnectionLifecycle], Bool) in
            var victims: [ConnectionLifecycle] = []
            if (state.perClient[client] ?? 0) >= limits.perClient {
                guard let oldest = state.longestWaiting(client: client) else {
                    return (
                        .refused(reason: "this client has \(limits.perClient) connections open already (--max-connections-per-client)"), [],
                        false
                    )
                }
                victims.append(oldest)
            }
            if state.connections.count - victims.count >= limits.total {
                guard let oldest = state.longestWaiting(client: nil, excluding: victims.first) else {
                    return (.refused(reason: "Larder has \(limits.total) connections open, its limit (--max-connections)"), [], false)
                }
                victims.append(oldest)
            }
            for victim in victims {
                _ = state.remove(victim)
            }
            state.connections[ObjectIdentifier(lifecycle)] = lifecycle
            state.perClient[client, default: 0] += 1
            return (.admitted(lifecycle), victims, state.isShuttingDown)
        }
        for connection in evicted {
            connection.evict()
        }
        if shuttingDown {
            lifecycle.shutdown()
        }
        return admission
    }

    /// Stops tracking a closed connection.
    func remove(_ lifecycle: ConnectionLifecycle) {
        _ = self.state.withLock { $0.remove(lifecycle) }
    }

    /// Begins graceful shutdown of every connection.
    func shutdown() {
        let connections = self.state.withLock { state in
            state.isShuttingDown = true
            return Array(state.connections.values)
        }
        for connection in connections {
            connection.shutdown()
        }
    }
}

/// The connection limits ``ConnectionRegistry/admit(_:client:limits:)`` keeps.
struct ConnectionCounts: Sendable, Hashable {
    /// Connections open at once.
    var total: Int
    /// Connections one client address may hold.
    var perClient: Int
}
