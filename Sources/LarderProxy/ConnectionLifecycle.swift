import NIOConcurrencyHelpers
import NIOCore

/// Shutdown bookkeeping for one client connection: an idle connection (between requests)
/// closes at once on graceful shutdown; a busy one finishes its response first.
final class ConnectionLifecycle: Sendable {
    private struct State {
        var isIdle = true
        var isShuttingDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let channel: any Channel

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Whether graceful shutdown has begun.
    var isShuttingDown: Bool {
        self.state.withLockedValue { $0.isShuttingDown }
    }

    /// Marks the connection idle (waiting for a request) or busy.
    func setIdle(_ idle: Bool) {
        let close = self.state.withLockedValue { state in
            state.isIdle = idle
            return idle && state.isShuttingDown
        }
        if close {
            self.channel.close(promise: nil)
        }
    }

    /// Begins graceful shutdown for this connection.
    func shutdown() {
        let close = self.state.withLockedValue { state in
            state.isShuttingDown = true
            return state.isIdle
        }
        if close {
            self.channel.close(promise: nil)
        }
    }
}

/// The live connections of a server, so graceful shutdown can reach them.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ConnectionLifecycle] = [:]
        var isShuttingDown = false
    }

    private let state = NIOLockedValueBox(State())

    /// Tracks a new connection.
    func register(_ channel: any Channel) -> ConnectionLifecycle {
        let lifecycle = ConnectionLifecycle(channel: channel)
        let shuttingDown = self.state.withLockedValue { state in
            state.connections[ObjectIdentifier(lifecycle)] = lifecycle
            return state.isShuttingDown
        }
        if shuttingDown {
            lifecycle.shutdown()
        }
        return lifecycle
    }

    /// Stops tracking a finished connection.
    func remove(_ lifecycle: ConnectionLifecycle) {
        _ = self.state.withLockedValue { $0.connections.removeValue(forKey: ObjectIdentifier(lifecycle)) }
    }

    /// Begins graceful shutdown of every connection.
    func shutdown() {
        let connections = self.state.withLockedValue { state in
            state.isShuttingDown = true
            return Array(state.connections.values)
        }
        for connection in connections {
            connection.shutdown()
        }
    }
}
