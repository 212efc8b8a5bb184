import Synchronization

/// Whether the proxy's clients are busy: answers (``ProxyStatistics``) came at
/// ``busyRate`` per second or more since the previous look, over at least ``window``.
///
/// Precache jobs in the proxy pause before each download while clients are busy
/// (``PrecacheOptions``'s `pauseBeforeDownload`, set where the proxy is assembled): their downloads,
/// hashing, syncs and index writes would otherwise take the cores from the answers
/// (docs/SERVING.md, "Precache jobs yield to clients").
public final class ClientActivity: Sendable {
    /// Answers per second from which clients count as busy: a page loading its assets, a game's
    /// burst of requests, a load test; not an app polling now and then.
    public static let busyRate = 50.0
    /// The shortest stretch a look measures; a look sooner gives the previous answer.
    public static let window: Duration = .milliseconds(100)

    private struct Look {
        var at: ContinuousClock.Instant
        var answered: Int
        var busy: Bool
    }

    private let statistics: ProxyStatistics
    private let last: Mutex<Look>

    /// Watches the answers `statistics` counts.
    public init(statistics: ProxyStatistics, now: ContinuousClock.Instant = .now) {
        self.statistics = statistics
        self.last = Mutex(Look(at: now, answered: statistics.answered, busy: false))
    }

    /// Whether clients are busy at `now`.
    public func isBusy(now: ContinuousClock.Instant = .now) -> Bool {
        let answered = self.statistics.answered
        return self.last.withLock { look in
            let elapsed = now - look.at
            guard elapsed >= Self.window else { return look.busy }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            look = Look(at: now, answered: answered, busy: Double(answered - look.answered) >= Self.busyRate * seconds)
            return look.busy
        }
    }
}
