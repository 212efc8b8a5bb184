import Foundation

/// What the header badge of Larder's pages says, and /dev/offline.json's `connectivity`: offline
/// mode, the app's origins that cannot be reached, or online (docs/SERVING.md, "Own pages").
public struct Connectivity: Sendable, Codable, Hashable {
    /// The state the badge shows.
    public enum State: String, Sendable, Codable, Hashable {
        /// Offline mode: the network is never contacted.
        case offline
        /// One or more of the app's origins could not be reached the last time Larder tried.
        case originsUnreachable = "origins-unreachable"
        /// Neither.
        case online
    }

    /// The state.
    public var state: State
    /// The app's origins whose latest connection attempt failed (backing off or not), sorted; the
    /// browser's own hosts are not among them.
    public var unreachableOrigins: [String]

    /// The state from offline mode and the app's origins that could not be reached
    /// (`unreachableOrigins`, sorted): the proxy tells them from its upstream health
    /// (Sources/LarderProxy/Health/HostHealth+Reports.swift).
    public init(offline: Bool, unreachableOrigins: [String]) {
        self.unreachableOrigins = unreachableOrigins
        if offline {
            self.state = .offline
        } else {
            self.state = unreachableOrigins.isEmpty ? .online : .originsUnreachable
        }
    }
}
