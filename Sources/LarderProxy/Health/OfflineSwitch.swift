import Synchronization

/// Offline mode, switchable at run time (`--offline`, and later the /dev/offline toggle).
public final class OfflineSwitch: Sendable {
    private let state: Mutex<Bool>

    /// Creates the switch in the given position.
    public init(_ isOffline: Bool) {
        self.state = Mutex(isOffline)
    }

    /// Whether the proxy must not contact upstream.
    public var isOffline: Bool {
        get { self.state.withLock { $0 } }
        set { self.state.withLock { $0 = newValue } }
    }
}
