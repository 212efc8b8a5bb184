import Foundation
import LarderHTTP
import LarderStore

/// Orders a dated series' days. Pure: "now" and the store come in as values.
///
/// Rules:
/// - Today is the calendar day of `now` in the series' zone; days are compared as calendar days,
///   never as timestamps.
/// - In range: today; the `past` days before it (not before `from=`); the `future` days after it.
///   A manifest series has the days its manifest lists within that range; a template series has
///   every day of it.
/// - Order: today first, then the past days newest first, then the future days oldest first.
/// - A day the store holds is kept in the plan (it counts as cached) but not fetched again.
/// - Across series (``backlog(_:)``): every series' past days by how recent they are (series in
///   list order for the same day), then their future days by how soon.
public struct SeriesPlanner: Sendable {
    /// The query parameters left out of cache keys.
    public var queryFilter: QueryParameterFilter

    /// Creates a planner.
    public init(queryFilter: QueryParameterFilter = .default) {
        self.queryFilter = queryFilter
    }

    /// Plans one series.
    ///
    /// - Parameters:
    ///   - series: The series line.
    ///   - listing: The manifest's files for a manifest series (nil for a template).
    ///   - manifestError: Why a manifest series' manifest could not be used; the plan has no days.
    ///   - now: The moment that decides today.
    ///   - isCached: Whether the store holds a key.
    public func plan(
        _ series: SeriesSource,
        listing: SeriesListing?,
        manifestError: String? = nil,
        now: Date,
        isCached: (CacheKey) -> Bool
    ) -> SeriesPlan {
        let today = series.today(at: now)
        if let manifestError {
            return SeriesPlan(series: series, today: today, days: [], error: manifestError)
        }
        var earliest = today.adding(days: -series.past)
        if let from = series.from, from > earliest {
            earliest = from
        }
        let latest = today.adding(days: series.future)
        var candidates: [(day: CalendarDay, url: HTTPURL)] = []
        switch series.kind {
        case .manifest:
            candidates = (listing?.files ?? []).filter { $0.day >= earliest && $0.day <= latest }.map { ($0.day, $0.url) }
        case .template(let template):
            var day = latest
            while day >= earliest {
                if let url = try? HTTPURL(parsing: template.url(for: day)) {
                    candidates.append((day, url))
                }
                day = day.adding(days: -1)
            }
        }
        let days = candidates.map { candidate in
            let key = CacheKey(url: candidate.url, filter: self.queryFilter)
            let position: SeriesPlan.Position = candidate.day == today ? .today : candidate.day < today ? .past : .future
            return SeriesPlan.Day(day: candidate.day, url: candidate.url, key: key, position: position, isCached: isCached(key))
        }
        return SeriesPlan(series: series, today: today, days: Self.ordered(days, today: today), refused: listing?.refused ?? [])
    }

    /// Today, then the past newest first, then the future oldest first.
    static func ordered(_ days: [SeriesPlan.Day], today: CalendarDay) -> [SeriesPlan.Day] {
        days.sorted { lhs, rhs in
            let left = Self.rank(lhs.day, today: today)
            let right = Self.rank(rhs.day, today: today)
            return left < right
        }
    }

    /// Today 0, yesterday 1, the day before 2..., then tomorrow, the day after... after every past day.
    private static func rank(_ day: CalendarDay, today: CalendarDay) -> (Int, Int) {
        let offset = today.days(to: day)
        return offset <= 0 ? (0, -offset) : (1, offset)
    }

    /// The backlog of several series (tier 3): the days not cached, past days first by how recent
    /// they are, then future days by how soon, series in list order for the same day. Each key once.
    public static func backlog(_ plans: [SeriesPlan]) -> [SeriesPlan.Day] {
        var ranked: [(rank: (Int, Int), series: Int, day: SeriesPlan.Day)] = []
        for (index, plan) in plans.enumerated() {
            for day in plan.days where day.position != .today && !day.isCached {
                ranked.append((Self.rank(day.day, today: plan.today), index, day))
            }
        }
        ranked.sort { ($0.rank.0, $0.rank.1, $0.series) < ($1.rank.0, $1.rank.1, $1.series) }
        var seen: Set<CacheKey> = []
        return ranked.map(\.day).filter { seen.insert($0.key).inserted }
    }
}
