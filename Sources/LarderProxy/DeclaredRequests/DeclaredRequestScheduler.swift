import Foundation
import LarderDeclaredRequests
import LarderHTTP
import LarderStore
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the declared requests fresh while the proxy runs: executes ``DeclaredRequestTimetable``
/// (start-up, schedule, back-off, connectivity returning, refresh now) with
/// ``DeclaredRequestRunner``, looking at the clock and at the proxy's upstream health once a
/// second, so a returning origin is used within a second of the proxy seeing it answer.
public final class DeclaredRequestScheduler: Service, Sendable {
    private let timetable: Mutex<DeclaredRequestTimetable>
    private let runner: DeclaredRequestRunner
    private let health: UpstreamHealthRegistry
    private let offline: OfflineSwitch
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// A scheduler for `requests`, every one of them due at start-up, reading the time from `now`
    /// (the proxy's, ``ProxyConfiguration/now``).
    public init(
        requests: [DeclaredRequest],
        runner: DeclaredRequestRunner,
        health: UpstreamHealthRegistry,
        offline: OfflineSwitch,
        now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.now = now
        self.timetable = Mutex(DeclaredRequestTimetable(requests, now: now()))
        self.runner = runner
        self.health = health
        self.offline = offline
        self.logger = logger
    }

    /// The declared requests' names, in config order.
    public var names: [String] {
        self.timetable.withLock { $0.slots.map(\.request.name) }
    }

    /// Runs `name` as soon as possible; false when no declared request has that name.
    public func refreshNow(_ name: String) -> Bool {
        self.timetable.withLock { $0.refreshNow(name, now: self.now()) }
    }

    /// Runs requests as they fall due until shutdown (runs under way are then cancelled).
    public func run() async {
        let names = Set(self.names)
        do {
            // Records of requests the config no longer declares would show as stale forever.
            try await self.runner.store.keepDeclaredRequests(named: names)
        } catch {
            self.logger.error("cannot tidy declared request records", metadata: ["error": "\(error)"])
        }
        guard !names.isEmpty else {
            // A service that returns early would stop the proxy with it.
            try? await gracefulShutdown()
            return
        }
        // Graceful shutdown cancels the loop and, with it, the runs under way.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    let now = self.now()
                    let health = self.health
                    let due = self.timetable.withLock { timetable in
                        timetable.takeDue(now: now, offline: self.offline.isOffline) { origin, since in
                            health.snapshot()[origin]?.lastSuccess.map { $0 > since } ?? false
                        }
                    }
                    for request in due {
                        group.addTask { await self.runOnce(request, started: now) }
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    private func runOnce(_ request: DeclaredRequest, started: Date) async {
        let outcome = await self.runner.run(request, now: started) { outcome in
            let origin = (try? request.url.render(TextTemplate.Context(now: started, timeZone: request.timeZone)))
                .flatMap { try? HTTPURL(parsing: $0) }?.origin
            let succeeded = if case .stored = outcome { true } else { false }
            let unreachable = if case .failed(_, true) = outcome { true } else { false }
            return self.timetable.withLock {
                $0.finished(
                    request.name, started: started, succeeded: succeeded, unreachable: unreachable, origin: origin, now: self.now(),
                    jitter: Double.random(in: 0..<1))
            }
        }
        self.logger.debug("declared request ran", metadata: ["name": "\(request.name)", "outcome": "\(outcome)"])
    }
}
