import LarderHTTP
import LarderStore

/// What a run does for one dated series: its days in the order they are needed, each cached or not.
public struct SeriesPlan: Sendable, Hashable {
    /// Where a day stands relative to today.
    public enum Position: String, Sendable, Hashable, Codable {
        /// Today, in the series' zone: tier 1.
        case today
        /// A day before today: the backlog (tier 3), newest first.
        case past
        /// A day after today: the runway (tier 3, after every past day), oldest first.
        case future
    }

    /// One day in range.
    public struct Day: Sendable, Hashable {
        /// The date.
        public var day: CalendarDay
        /// Where its file is.
        public var url: HTTPURL
        /// The key its file is stored under.
        public var key: CacheKey
        /// Today, past or future.
        public var position: Position
        /// Whether the store already holds it (it is not fetched again).
        public var isCached: Bool

        /// Creates a planned day.
        public init(day: CalendarDay, url: HTTPURL, key: CacheKey, position: Position, isCached: Bool) {
            self.day = day
            self.url = url
            self.key = key
            self.position = position
            self.isCached = isCached
        }
    }

    /// The series.
    public var series: SeriesSource
    /// Today in the series' zone when the run planned.
    public var today: CalendarDay
    /// Every day in range, in the order it is needed: today (when listed), the past days newest
    /// first, the future days oldest first.
    public var days: [Day]
    /// Why the series' manifest could not be used (`MANIFEST-URL: reason`), or nil.
    public var error: String?
    /// Manifest entries left out, and why.
    public var refused: [RefusedEntry]

    /// Creates a series plan.
    public init(series: SeriesSource, today: CalendarDay, days: [Day], error: String? = nil, refused: [RefusedEntry] = []) {
        self.series = series
        self.today = today
        self.days = days
        self.error = error
        self.refused = refused
    }

    /// Today's day when it is in range and not cached: what tier 1 fetches.
    public var todayToFetch: Day? {
        self.days.first { $0.position == .today && !$0.isCached }
    }
}
