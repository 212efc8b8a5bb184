import Foundation

/// One page origin's use of the limits on its precache jobs (``PagePrecacheLimit``) at one moment, for /dev/offline.
public struct PageJobUse: Sendable, Hashable {
    /// The page origin.
    public var origin: String
    /// Jobs asked for in the past hour.
    public var jobs: Int
    /// Bytes those jobs downloaded.
    public var bytes: Int64

    /// A use.
    public init(origin: String, jobs: Int, bytes: Int64) {
        self.origin = origin
        self.jobs = jobs
        self.bytes = bytes
    }
}
