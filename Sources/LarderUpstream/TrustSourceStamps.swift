import Foundation

/// What the files upstream trust is read from (``UpstreamTrust/sourceFiles()``) looked like when
/// it was last built, to tell when it must be built again: a file replaced (a new inode, as
/// `update-ca-certificates` and editors' renames make), rewritten (size, modification time),
/// added or removed. Looking costs one `stat` per file, and is done at most once per
/// ``checkInterval``, so a hot path may ask on every new connection.
package struct TrustSourceStamps: Sendable {
    /// How often the files are looked at, at most, unless told otherwise.
    package static let defaultCheckInterval: Duration = .seconds(10)

    /// One file's identity; nil when it cannot be read.
    private struct Stamp: Equatable {
        var path: String
        var inode: UInt64?
        var size: UInt64?
        var modified: Date?
    }

    private let trust: UpstreamTrust
    /// How often the files are looked at, at most.
    package let checkInterval: Duration
    private var stamps: [Stamp]
    private var lastChecked: ContinuousClock.Instant

    /// The files of `trust` as they are now.
    package init(of trust: UpstreamTrust, checkInterval: Duration = Self.defaultCheckInterval, now: ContinuousClock.Instant = .now) {
        self.trust = trust
        self.checkInterval = checkInterval
        self.stamps = Self.stamps(of: trust)
        self.lastChecked = now
    }

    /// Whether a file changed since the last time this said so (or since `init`), looking only
    /// when ``checkInterval`` has passed since the last look.
    package mutating func haveChanged(now: ContinuousClock.Instant = .now) -> Bool {
        guard now - self.lastChecked >= self.checkInterval else {
            return false
        }
        self.lastChecked = now
        let current = Self.stamps(of: self.trust)
        guard current != self.stamps else {
            return false
        }
        self.stamps = current
        return true
    }

    private static func stamps(of trust: UpstreamTrust) -> [Stamp] {
        trust.sourceFiles().map { path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return Stamp(
                path: path,
                inode: (attributes?[.systemFileNumber] as? NSNumber)?.uint64Value,
                size: (attributes?[.size] as? NSNumber)?.uint64Value,
                modified: attributes?[.modificationDate] as? Date
            )
        }
    }
}
