import Foundation
import Synchronization

/// The `HostHealth` of every upstream host the proxy has talked to, shared by all connections.
public final class UpstreamHealthRegistry: Sendable {
    private let hosts = Mutex<[String: HostHealth]>([:])
    private let policy: HostHealth.Policy

    /// Creates an empty registry.
    public init(policy: HostHealth.Policy = .init()) {
        self.policy = policy
    }

    /// Whether a request to `host` should try the network now.
    public func shouldAttempt(host: String, now: Date = Date()) -> Bool {
        self.hosts.withLock { $0[host]?.shouldAttempt(now: now) ?? true }
    }

    /// Records that `host` answered.
    public func recordSuccess(host: String, now: Date = Date()) {
        self.hosts.withLock { hosts in
            // Most answers come from healthy hosts: avoid a write when nothing changes.
            if let health = hosts[host], health.consecutiveFailures == 0,
                let last = health.lastSuccess, now.timeIntervalSince(last) < 1
            {
                return
            }
            hosts[host, default: HostHealth()].recordSuccess(now: now)
        }
    }

    /// Records that connecting to `host` failed.
    public func recordConnectFailure(host: String, description: String, now: Date = Date()) {
        self.hosts.withLock { hosts in
            hosts[host, default: HostHealth()].recordConnectFailure(description, now: now, policy: self.policy)
        }
    }

    /// A snapshot of every host's state.
    public func snapshot() -> [String: HostHealth] {
        self.hosts.withLock { $0 }
    }
}
