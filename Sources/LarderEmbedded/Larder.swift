import Synchronization

/// Larder inside an app: the caching proxy `larder serve` runs, started and stopped from code.
///
/// ```swift
/// let larder = Larder(configuration: .init(cacheDirectory: cachesFolder + "/larder"))
/// let port = try await larder.start()         // 127.0.0.1, a free port
/// // point the web view's HTTP and HTTPS proxy at 127.0.0.1:port (docs/EMBEDDING.md)
/// let job = try larder.precache(lines: ["https://games.example/games/flipart"])
/// let report = try await larder.precacheReport(job)
/// let status = try await larder.status()      // entries and bytes stored, answers by outcome
/// try await larder.stop()                     // in-flight answers finish, the port is released
/// ```
///
/// One Larder runs at most once at a time; after ``stop()`` it may be started again (on a new
/// free port when the configuration's is 0). Every method may be called from any task.
public final class Larder: Sendable {
    /// What each start uses.
    public let configuration: Configuration

    private enum Phase {
        case stopped
        case starting
        case running(RunningLarder)
        case stopping(RunningLarder)
    }

    private struct State {
        var phase = Phase.stopped
        /// Counts starts, so that the end of an earlier run never touches a later one.
        var generation = 0
    }

    private let state = Mutex(State())

    /// A Larder with `configuration`; nothing is opened or listens until ``start()``.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Opens the cache directory, makes the upstream client and the local CA, and listens.
    ///
    /// - Returns: The port listened on (the one chosen when the configuration's port is 0).
    /// - Throws: ``LarderError`` naming the problem: already running, a host beyond loopback with
    ///   no allowed networks, a cache directory that cannot be opened, an upstream client or CA
    ///   that cannot be made, an address that cannot be listened on. Nothing keeps running then.
    @discardableResult
    public func start() async throws(LarderError) -> Int {
        let generation = try self.state.withLock { state throws(LarderError) in
            switch state.phase {
            case .stopped:
                state.generation += 1
                state.phase = .starting
                return state.generation
            case .starting:
                throw .alreadyRunning("starting")
            case .running(let running):
                throw .alreadyRunning("running on \(running.host):\(running.port)")
            case .stopping:
                throw .alreadyRunning("stopping")
            }
        }
        let running: RunningLarder
        do {
            running = try await RunningLarder.start(self.configuration, generation: generation) { self.ended(generation) }
        } catch {
            self.ended(generation)
            throw error
        }
        let up = self.state.withLock { state in
            guard case .starting = state.phase, state.generation == generation else { return false }
            state.phase = .running(running)
            return true
        }
        guard up else {
            // It stopped at once (a part failed just after listening): say why.
            do {
                try await running.finished()
            } catch {
                throw .failed(error)
            }
            throw .notRunning
        }
        return running.port
    }

    /// Stops gracefully: stops accepting, lets in-flight responses finish (up to the configuration's
    /// `shutdownGrace`), ends precache jobs and background work, closes the index and releases the
    /// port. Returns once all of that is done; does nothing when Larder is not running.
    ///
    /// - Throws: ``LarderError/failed(_:)`` when a part of Larder had failed while running.
    public func stop() async throws(LarderError) {
        let running: RunningLarder? = self.state.withLock { state in
            guard case .running(let running) = state.phase else { return nil }
            state.phase = .stopping(running)
            return running
        }
        guard let running else {
            // Stopping already: wait for it.
            if case .stopping(let stopping) = self.state.withLock({ $0.phase }) {
                try? await stopping.finished()
            }
            return
        }
        do {
            try await running.stop()
        } catch {
            throw .failed(error)
        }
    }

    /// Waits until Larder stops: by ``stop()``, by SIGINT or SIGTERM when the configuration's
    /// `stopsOnTerminationSignals` is set, or because a part of it failed (thrown).
    ///
    /// - Throws: ``LarderError/notRunning`` when it is not running, ``LarderError/failed(_:)``
    ///   when a part failed.
    public func wait() async throws(LarderError) {
        let running = try self.running()
        do {
            try await running.finished()
        } catch {
            throw .failed(error)
        }
    }

    /// The running parts, or ``LarderError/notRunning``.
    func running() throws(LarderError) -> RunningLarder {
        try self.state.withLock { state throws(LarderError) in
            guard case .running(let running) = state.phase else { throw .notRunning }
            return running
        }
    }

    /// Called when the run of `generation` has stopped, however it ended.
    private func ended(_ generation: Int) {
        self.state.withLock { state in
            guard state.generation == generation else { return }
            state.phase = .stopped
        }
    }
}
