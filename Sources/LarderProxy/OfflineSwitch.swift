import NIOConcurrencyHelpers

/// Offline mode, switchable at run time (`--offline`, and later the /dev/offline toggle).
public final class OfflineSwitch: Sendable {
    private let state: NIOLockedValueBox<Bool>

    /// Creates the switch in the given position.
    public init(_ isOffline: Bool) {
        self.state = NIOLockedValueBox(isOffline)
    }

    /// Whether the proxy must not contact upstream.
    public var isOffline: Bool {
        get { self.state.withLockedValue { $0 } }
        set { self.state.withLockedValue { $0 = newValue } }
    }
}
