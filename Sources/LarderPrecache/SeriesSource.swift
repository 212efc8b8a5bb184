import Foundation
import LarderHTTP
import LarderStore

/// A dated series a games list names (`series MANIFEST-URL ...` or `series URL-TEMPLATE ...`): one
/// small file per day, precached today first, then the days before, then a few days ahead.
public struct SeriesSource: Sendable, Hashable {
    /// Where the series' days come from.
    public enum Kind: Sendable, Hashable {
        /// A manifest listing the dated files (see ``SeriesListing``), fetched on every run.
        case manifest(HTTPURL)
        /// A URL template: every day in range is tried, and a day the origin does not have is missing.
        case template(SeriesTemplate)
    }

    /// Manifest or template.
    public var kind: Kind
    /// The line as normalised (words joined by one space), e.g. `series https://x.example/p/puzzles.json tz=UTC`:
    /// what "refresh now" queues again.
    public var line: String
    /// The 1-based line of the list that named the series.
    public var lineNumber: Int
    /// How many days before today are precached (`past=N`).
    public var past: Int
    /// How many days after today are precached (`future=N`).
    public var future: Int
    /// The zone whose calendar says which day is today (`tz=Area/City`, else the machine's).
    public var timeZone: TimeZone
    /// The zone's name as the line wrote it (`UTC` stays `UTC`), else the machine zone's identifier.
    public var timeZoneName: String
    /// No day before this one is precached (`from=YYYY-MM-DD`), or nil.
    public var from: CalendarDay?

    /// The most days back a series reaches, and `past` for a manifest when the line does not say.
    public static let maximumPast = 3650
    /// `past` for a template when the line does not say.
    public static let defaultTemplatePast = 30
    /// `future` when the line does not say.
    public static let defaultFuture = 7
    /// The most days ahead a series reaches.
    public static let maximumFuture = 31

    /// Creates a series source; ``GamesList/parse(_:source:)`` makes these from `series` lines.
    public init(
        kind: Kind, line: String, lineNumber: Int, past: Int, future: Int, timeZone: TimeZone, timeZoneName: String? = nil,
        from: CalendarDay? = nil
    ) {
        self.kind = kind
        self.line = line
        self.lineNumber = lineNumber
        self.past = past
        self.future = future
        self.timeZone = timeZone
        self.timeZoneName = timeZoneName ?? timeZone.identifier
        self.from = from
    }

    /// The manifest URL or the template as written: what identifies the series in the store.
    public var location: String {
        switch self.kind {
        case .manifest(let url): url.absoluteString
        case .template(let template): template.text
        }
    }

    /// `manifest` or `template`.
    public var kindName: String {
        switch self.kind {
        case .manifest: "manifest"
        case .template: "template"
        }
    }

    /// The URLs that say which origin the series is on: its manifest URL, or its template made for
    /// one day (a template's days share everything but the date's digits).
    public var sampleURLs: [HTTPURL] {
        switch self.kind {
        case .manifest(let url):
            return [url]
        case .template(let template):
            return [CalendarDay(year: 2025, month: 10, day: 26).flatMap { try? HTTPURL(parsing: template.url(for: $0)) }].compactMap { $0 }
        }
    }

    /// Today in the series' zone, at `now`.
    public func today(at now: Date) -> CalendarDay {
        CalendarDay(now, in: self.timeZone)
    }
}
