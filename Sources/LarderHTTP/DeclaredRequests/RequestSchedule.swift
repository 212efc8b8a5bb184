import Foundation

/// When a declared request runs: at start-up, then every `every`, or at `at` each day in the
/// request's time zone and every `every` after it that day; plus a random delay of up to `jitter`
/// on scheduled runs, so a fleet of devices does not ask the origin at the same second.
///
/// A request whose text names a day (`{{today}}`) also runs just after midnight in its zone,
/// since its answer for yesterday no longer answers the app. While it fails it is retried with a
/// back-off (``retryDelay(afterFailures:)``), and at once when the origin answers again.
public struct RequestSchedule: Sendable, Hashable {
    /// A time of day, `HH:MM`.
    public struct TimeOfDay: Sendable, Hashable {
        public var hour: Int
        public var minute: Int

        /// Reads `HH:MM` (24-hour); nil when it is not one.
        public init?(parsing text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
                let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
            else { return nil }
            self.hour = hour
            self.minute = minute
        }
    }

    /// The default interval: one hour.
    public static let defaultEvery: Duration = .seconds(3600)

    /// The time between runs (with `at`: between the runs of one day).
    public var every: Duration
    /// The daily time runs are anchored to, in the request's time zone.
    public var at: TimeOfDay?
    /// The most a scheduled run is delayed at random.
    public var jitter: Duration

    /// A schedule.
    public init(every: Duration = Self.defaultEvery, at: TimeOfDay? = nil, jitter: Duration = .zero) {
        self.every = every
        self.at = at
        self.jitter = jitter
    }

    /// The first scheduled time after `date` (before jitter), for a request in `timeZone`;
    /// `midnight`: the request names a day, so the next midnight there is a run too.
    public func nextRun(after date: Date, lastRun: Date, timeZone: TimeZone, midnight: Bool) -> Date {
        let every = max(1, Self.seconds(self.every))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var next: Date
        if let at = self.at {
            // Today's anchor (or yesterday's, for the runs after midnight it spills into), then every `every`.
            let startOfDay = calendar.startOfDay(for: date)
            let anchorToday = calendar.date(bySettingHour: at.hour, minute: at.minute, second: 0, of: startOfDay) ?? startOfDay
            var anchor = anchorToday > date ? (calendar.date(byAdding: .day, value: -1, to: anchorToday) ?? anchorToday) : anchorToday
            next = anchor
            while next <= date {
                next += every
                let nextAnchor = calendar.date(byAdding: .day, value: 1, to: anchor) ?? anchor + 86_400
                if next >= nextAnchor {
                    anchor = nextAnchor
                    next = nextAnchor
                }
            }
        } else {
            next = lastRun + every
            if next <= date {
                next = date + every
            }
        }
        if midnight, let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date)) {
            // A second after midnight: "today" has changed everywhere in the zone.
            next = min(next, tomorrow + 1)
        }
        return next
    }

    /// How long to wait before retrying after `failures` consecutive failures: 5 s, doubling, at
    /// most 5 minutes (connectivity returning is noticed sooner, from the proxy's traffic).
    public static func retryDelay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 6)
        return .seconds(min(5 * (1 << doublings), 300))
    }

    /// `duration` in seconds, as a `TimeInterval`.
    public static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
