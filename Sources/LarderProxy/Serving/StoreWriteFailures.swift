import Foundation
import LarderHTTP
import LarderIntrospection
import Logging
import Synchronization

/// Failures to store responses (a full disk, a read-only cache directory): logged at most once a
/// minute, with how many went unlogged, and shown on /dev/offline until a response is stored
/// again. While they last, answers do not claim `stored` in `Cache-Status`.
public final class StoreWriteFailures: Sendable {
    /// The failures since the last success, as /dev/offline shows them.
    public typealias Problem = StoreWriteProblem

    private struct State {
        var problem: Problem?
        var lastLogged: ContinuousClock.Instant?
        var unlogged = 0
    }

    /// The shortest time between two log lines about failures.
    static let logInterval: Duration = .seconds(60)

    private let state = Mutex(State())
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// Failures logged to `logger`, dated by `now` (the proxy's clock).
    init(logger: Logger, now: @escaping @Sendable () -> Date) {
        self.logger = logger
        self.now = now
    }

    /// The failures since the last stored response, or nil.
    public var current: Problem? {
        self.state.withLock { $0.problem }
    }

    /// Whether storing failed since the last success.
    var isFailing: Bool {
        self.current != nil
    }

    /// Records that the response for `url` was not stored because of `error`.
    func record(_ error: any Error, url: String) {
        let now = ContinuousClock.now
        let date = self.now()
        let unlogged: Int? = self.state.withLock { state in
            let description = "\(error)"
            if var problem = state.problem {
                problem.failures += 1
                problem.lastError = description
                state.problem = problem
            } else {
                state.problem = Problem(since: date, failures: 1, lastError: description)
            }
            if let last = state.lastLogged, now - last < Self.logInterval {
                state.unlogged += 1
                return nil
            }
            state.lastLogged = now
            defer { state.unlogged = 0 }
            return state.unlogged
        }
        guard let unlogged else { return }
        var metadata: Logger.Metadata = ["url": "\(url)", "error": "\(error)"]
        if unlogged > 0 {
            metadata["notLogged"] = "\(unlogged)"
        }
        self.logger.warning("cannot store responses (logged at most once a minute; see /dev/offline)", metadata: metadata)
    }

    /// Records that a response was stored: the failures are over.
    func recordSuccess() {
        let ended = self.state.withLock { state -> Problem? in
            defer { state.problem = nil }
            return state.problem
        }
        if let ended {
            self.logger.notice("storing responses again", metadata: ["failed": "\(ended.failures)"])
        }
    }
}
