import Foundation
import LarderHTTP
import Synchronization

/// The `HostHealth` of the upstream origins (scheme, host and port) the proxy has talked to, shared
/// by all connections: a dead `127.0.0.1:8899` does not hold up a live `127.0.0.1:8897`.
///
/// Bounded (docs/SERVING.md, "Bounds"): a page can send requests to any number of origins (an
/// `<img>` per address), so only the ``capacity`` most recently used are kept, those backing off
/// preferably, and reports list at most ``reportLimit``.
public final class UpstreamHealthRegistry: Sendable {
    /// How many origins are kept. A forgotten origin starts afresh as healthy.
    public static let capacity = 4_096
    /// How many origins /dev/offline and `/metrics` list (``reported()``).
    public static let reportLimit = 100

    private let origins: Mutex<LeastRecentlyUsedCache<String, HostHealth>>
    private let policy: HostHealth.Policy
    private let now: @Sendable () -> Date

    /// Creates an empty registry reading the time from `now` (the proxy's, ``ProxyConfiguration/now``).
    public init(policy: HostHealth.Policy = .init(), now: @escaping @Sendable () -> Date) {
        self.origins = Mutex(LeastRecentlyUsedCache(capacity: Self.capacity))
        self.policy = policy
        self.now = now
    }

    /// Whether `origin` is outside a back-off window (for reports and for rules that only look; a
    /// request that would go to the network asks ``admit(origin:now:)``), at `now`: the instant a
    /// caller judges everything else at, else the registry's clock read now.
    public func shouldAttempt(origin: String, now: Date? = nil) -> Bool {
        let now = now ?? self.now()
        return self.origins.withLock { $0.value(for: origin)?.shouldAttempt(now: now) ?? true }
    }

    /// Whether a request to `origin` tries the network: outside a back-off, or as the probe of one
    /// (``HostHealth/admit(now:policy:)``), at `now` (as for ``shouldAttempt(origin:now:)``).
    public func admit(origin: String, now: Date? = nil) -> Bool {
        let now = now ?? self.now()
        return self.origins.withLock { hosts in
            guard let kept = hosts.value(for: origin) else { return true }
            var health = kept
            let admitted = health.admit(now: now, policy: self.policy)
            if health != kept {
                hosts.insert(health, for: origin)
            }
            return admitted
        }
    }

    /// Records that `origin` answered.
    func recordSuccess(origin: String) {
        let now = self.now()
        self.update(origin, now: now) { health in
            // Most answers come from healthy hosts: leave their record as it is.
            if health.consecutiveFailures == 0, let last = health.lastSuccess, now.timeIntervalSince(last) < 1 {
                return
            }
            health.recordSuccess(now: now)
        }
    }

    /// Records that connecting to `origin` failed.
    func recordConnectFailure(origin: String, description: String) {
        let now = self.now()
        self.update(origin, now: now) { $0.recordConnectFailure(description, now: now, policy: self.policy) }
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

    /// Changes the health of `origin` (healthy when not kept), which becomes the most recently used;
    /// when the registry is full, the origin used longest ago goes, passing over those backing off
    /// at `now` (``LeastRecentlyUsedCache/insert(_:for:preferablyKeeping:)``).
    private func update(_ origin: String, now: Date, _ change: (inout HostHealth) -> Void) {
        self.origins.withLock { hosts in
            let kept = hosts.value(for: origin)
            var health = kept ?? HostHealth()
            change(&health)
            guard health != kept else { return }
            hosts.insert(health, for: origin, preferablyKeeping: { !$0.shouldAttempt(now: now) })
        }
    }

    /// A snapshot of every origin's state (at most ``capacity``).
    public func snapshot() -> [String: HostHealth] {
        self.origins.withLock { $0.contents }
    }

    /// The origins reports list, at most ``reportLimit``: those whose latest attempt failed first,
    /// then the others, each most recently used first.
    public func reported() -> [(origin: String, health: HostHealth)] {
        let recent = self.origins.withLock { $0.mostRecentFirst }
        let ordered = recent.filter { $0.value.consecutiveFailures > 0 } + recent.filter { $0.value.consecutiveFailures == 0 }
        return ordered.prefix(Self.reportLimit).map { ($0.key, $0.value) }
    }
}
