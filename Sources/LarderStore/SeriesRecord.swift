import LarderHTTP

import struct Foundation.Date

/// What the store records about one dated series after a precache run (see ``Store/saveSeries(_:days:)``).
public struct SeriesRecord: Sendable, Hashable {
    /// The manifest URL or URL template: the series' identity.
    public var location: String
    /// The games.txt line, normalised: what "refresh now" precaches again.
    public var line: String
    /// `manifest` or `template`.
    public var kind: String
    /// The IANA zone whose calendar says which day is today, e.g. `Europe/Paris`.
    public var timeZone: String
    /// The key of the stored manifest (a manifest series), kept so the series can be listed offline.
    public var manifestKey: CacheKey?
    /// When the series was last precached.
    public var lastRun: Date
    /// Why the last run could not use the series' manifest, or nil.
    public var lastError: String?

    /// Creates a series record.
    public init(
        location: String, line: String, kind: String, timeZone: String, manifestKey: CacheKey? = nil, lastRun: Date,
        lastError: String? = nil
    ) {
        self.location = location
        self.line = line
        self.kind = kind
        self.timeZone = timeZone
        self.manifestKey = manifestKey
        self.lastRun = lastRun
        self.lastError = lastError
    }
}

/// One day of a recorded series.
public struct SeriesDayRecord: Sendable, Hashable {
    /// Whether a day's file is in.
    public enum State: String, Sendable, Hashable, Codable {
        /// Its file is stored.
        case cached
        /// The origin did not have it (a 404), or fetching it failed: `reason` says why.
        case missing
        /// In range, not fetched yet (a run cut short, or still under way).
        case planned
    }

    /// The day, `YYYY-MM-DD`.
    public var day: CalendarDay
    /// The key its file is stored under.
    public var key: CacheKey
    /// Where its file is.
    public var url: String
    /// Cached, missing or planned.
    public var state: State
    /// Why it is missing, or nil.
    public var reason: String?

    /// Creates a day record.
    public init(day: CalendarDay, key: CacheKey, url: String, state: State, reason: String? = nil) {
        self.day = day
        self.key = key
        self.url = url
        self.state = state
        self.reason = reason
    }
}

/// A recorded series as status pages show it, for one "today".
public struct SeriesSummary: Sendable, Hashable {
    /// The record.
    public var record: SeriesRecord
    /// Today in the series' zone.
    public var today: CalendarDay
    /// Today's day in range and its file stored.
    public var todayReady: Bool
    /// Days before today in range, and how many of them are stored.
    public var pastDays: Int
    /// Of ``pastDays``, the stored ones.
    public var pastCached: Int
    /// Days after today in range, and how many of them are stored.
    public var futureDays: Int
    /// Of ``futureDays``, the stored ones.
    public var futureCached: Int
    /// The newest day stored, today and future days included, or nil.
    public var newestCached: CalendarDay?
    /// Days the origin did not have, or that failed, in the last run.
    public var missing: Int
}
