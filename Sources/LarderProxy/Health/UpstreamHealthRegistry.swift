import Foundation
import Synchronization

/// The `HostHealth` of every upstream origin (scheme, host and port) the proxy has talked to, shared
/// by all connections: a dead `127.0.0.1:8899` does not hold up a live `127.0.0.1:8897`.
public final class UpstreamHealthRegistry: Sendable {
    private let origins = Mutex<[String: HostHealth]>([:])
    private let policy: HostHealth.Policy
    private let now: @Sendable () -> Date

    /// Creates an empty registry reading the time from `now` (the proxy's, ``ProxyConfiguration/now``).
    public init(policy: HostHealth.Policy = .init(), now: @escaping @Sendable () -> Date) {
        self.policy = policy
        self.now = now
    }

    /// Whether `origin` is outside a back-off window (for reports and for rules that only look; a
    /// request that would go to the network asks ``admit(origin:now:)``), at `now`: the instant a
    /// caller judges everything else at, else the registry's clock read now.
    public func shouldAttempt(origin: String, now: Date? = nil) -> Bool {
        let now = now ?? self.now()
        return self.origins.withLock { $0[origin]?.shouldAttempt(now: now) ?? true }
    }

    /// Whether a request to `origin` tries the network: outside a back-off, or as the probe of one
    /// (``HostHealth/admit(now:policy:)``), at `now` (as for ``shouldAttempt(origin:now:)``).
    public func admit(origin: String, now: Date? = nil) -> Bool {
        let now = now ?? self.now()
        return self.origins.withLock { hosts in
            guard hosts[origin] != nil else { return true }
            return hosts[origin]!.admit(now: now, policy: self.policy)
        }
    }

    /// Records that `origin` answered.
    func recordSuccess(origin: String) {
        let now = self.now()
        self.origins.withLock { hosts in
            // Most answers come from healthy hosts: avoid a write when nothing changes.
            if let health = hosts[origin], health.consecutiveFailures == 0,
                let last = health.lastSuccess, now.timeIntervalSince(last) < 1
            {
                return
            }
            hosts[origin, default: HostHealth()].recordSuccess(now: now)
        }
    }

    /// Records that connecting to `origin` failed.
    func recordConnectFailure(origin: String, description: String) {
        let now = self.now()
        self.origins.withLock { hosts in
            hosts[origin, default: HostHealth()].recordConnectFailure(description, now: now, policy: self.policy)
        }
    }

    /// Records what `outcome` of an attempt to reach `origin` shows by `rule`.
    func record(_ outcome: UpstreamHealthRule.Outcome, origin: String, rule: UpstreamHealthRule) {
        switch rule.evidence(outcome) {
        case .reachable:
            self.recordSuccess(origin: origin)
        case .unreachable:
            guard case .failed(let error) = outcome else { preconditionFailure("only a failure shows an origin unreachable") }
            self.recordConnectFailure(origin: origin, description: "\(error)")
        case .nothing:
            break
        }
    }

    /// A snapshot of every origin's state.
    public func snapshot() -> [String: HostHealth] {
        self.origins.withLock { $0 }
    }
}
