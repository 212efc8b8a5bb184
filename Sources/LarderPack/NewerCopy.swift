import LarderHTTP

import struct Foundation.Date

/// Which of two copies is newer when a pack meets a cache: a pack never replaces a newer copy
/// with an older one (docs/FORMATS.md, "Packs", defines "newer" in these words).
///
/// Copies of one response are ordered by what the origin said, since the two devices' clocks
/// need not agree: first `Last-Modified` (the representation's own age: a later fetch of an older
/// representation is not newer), then `Date` (when the origin sent it), then, when either lacks a
/// `Date` or both give the same second, the time the response arrived at the device that stored
/// it. A tie is never newer: importing the same copy again changes nothing.
public enum NewerCopy {
    /// What orders one stored response.
    public struct Stamp: Sendable, Equatable {
        /// The `Last-Modified` date, when present and valid.
        public var lastModified: Date?
        /// The `Date` header's date, when present and valid.
        public var date: Date?
        /// When the response head arrived at the storing device.
        public var responseTime: Date

        /// The stamp of a response stored with these header fields.
        public init(headers: [HeaderField], responseTime: Date) {
            self.lastModified = headers.first { $0.hasName("last-modified") }.flatMap { HTTPDate.parse($0.value) }
            self.date = headers.first { $0.hasName("date") }.flatMap { HTTPDate.parse($0.value) }
            self.responseTime = responseTime
        }
    }

    /// Whether `candidate` (the pack's copy) is newer than `stored` (the cache's), and so replaces it.
    public static func replaces(_ candidate: Stamp, over stored: Stamp) -> Bool {
        if let new = candidate.lastModified, let old = stored.lastModified, new != old {
            return new > old
        }
        if let new = candidate.date, let old = stored.date, new != old {
            return new > old
        }
        return candidate.responseTime > stored.responseTime
    }

    /// What orders one game record.
    public struct GameStamp: Sendable, Equatable {
        /// Whether the version is complete: ready, every listed file cached.
        public var isComplete: Bool
        /// When it was precached.
        public var lastRun: Date

        /// A game record's stamp.
        public init(isComplete: Bool, lastRun: Date) {
            self.isComplete = isComplete
            self.lastRun = lastRun
        }
    }

    /// Whether the pack's game version replaces the cache's: a complete version over an incomplete
    /// one, else the later precache run. A tie keeps the cache's.
    public static func replaces(_ candidate: GameStamp, over stored: GameStamp?) -> Bool {
        guard let stored else { return true }
        if candidate.isComplete != stored.isComplete {
            return candidate.isComplete
        }
        return candidate.lastRun > stored.lastRun
    }
}
