import Foundation
import LarderStore

/// One dated series as /dev/offline, its JSON and `larder status` show it; today is the series' own.
public struct SeriesReport: Sendable, Codable, Hashable {
    /// The manifest URL or URL template.
    public var location: String
    /// The games.txt line that precaches it (what "Refresh now" queues).
    public var line: String
    /// `manifest` or `template`.
    public var kind: String
    /// The zone whose calendar says which day is today.
    public var timeZone: String
    /// Today in that zone, `YYYY-MM-DD`.
    public var today: String
    /// Whether today's file is cached.
    public var todayReady: Bool
    /// Days before today in range (listed, for a manifest; tried, for a template).
    public var pastDays: Int
    /// Of ``pastDays``, the cached ones.
    public var pastCached: Int
    /// Days after today in range.
    public var futureDays: Int
    /// Of ``futureDays``, the cached ones.
    public var futureCached: Int
    /// The newest cached day, `YYYY-MM-DD`, or nil.
    public var newestCached: String?
    /// Days the origin did not have, or that failed, in the last run.
    public var missingDays: Int
    /// When it was last precached.
    public var lastRun: Date
    /// Why the last run could not use its manifest, or nil.
    public var lastError: String?

    /// The report of a store summary.
    public init(_ summary: SeriesSummary) {
        self.location = summary.record.location
        self.line = summary.record.line
        self.kind = summary.record.kind
        self.timeZone = summary.record.timeZone
        self.today = summary.today.description
        self.todayReady = summary.todayReady
        self.pastDays = summary.pastDays
        self.pastCached = summary.pastCached
        self.futureDays = summary.futureDays
        self.futureCached = summary.futureCached
        self.newestCached = summary.newestCached?.description
        self.missingDays = summary.missing
        self.lastRun = summary.record.lastRun
        self.lastError = summary.record.lastError
    }

    /// Every recorded series at `now`.
    static func read(from store: Store, now: Date) async throws -> [SeriesReport] {
        try await store.seriesSummaries(at: now).map(SeriesReport.init)
    }

    /// `today ready` or `today not ready`.
    public var readiness: String {
        self.todayReady ? "today ready" : "today not ready"
    }

    /// `past 28 of 30 days, 7 of 7 ahead, newest 2025-11-02, 2 missing`.
    public var facts: String {
        var facts = "past \(self.pastCached) of \(self.pastDays) days"
        if self.futureDays > 0 { facts += ", \(self.futureCached) of \(self.futureDays) ahead" }
        facts += ", newest " + (self.newestCached ?? "none")
        if self.missingDays > 0 { facts += ", \(self.missingDays) missing" }
        return facts
    }
}
