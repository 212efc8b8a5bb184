import Foundation
import GRDB
import LarderHTTP

extension Store {
    /// Records a series and replaces its days, in one transaction.
    public func saveSeries(_ series: SeriesRecord, days: [SeriesDayRecord]) async throws {
        try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO series (location, line, kind, time_zone, manifest_key, last_run, last_error)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(location) DO UPDATE SET
                        line = excluded.line, kind = excluded.kind, time_zone = excluded.time_zone,
                        manifest_key = excluded.manifest_key, last_run = excluded.last_run, last_error = excluded.last_error
                    """,
                arguments: [
                    series.location, series.line, series.kind, series.timeZone, series.manifestKey?.rawValue,
                    series.lastRun.timeIntervalSince1970, series.lastError,
                ]
            )
            try db.execute(sql: "DELETE FROM series_day WHERE location = ?", arguments: [series.location])
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO series_day (location, day, key, url, state, reason) VALUES (?, ?, ?, ?, ?, ?)"
            )
            for day in days {
                try insert.execute(arguments: [
                    series.location, day.day.description, day.key.rawValue, day.url, day.state.rawValue, day.reason,
                ])
            }
        }
    }

    /// Every recorded series, by location.
    public func series() async throws -> [SeriesRecord] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT location, line, kind, time_zone, manifest_key, last_run, last_error FROM series ORDER BY location"
            ).map { row in
                SeriesRecord(
                    location: row["location"],
                    line: row["line"],
                    kind: row["kind"],
                    timeZone: row["time_zone"],
                    manifestKey: (row["manifest_key"] as String?).map { CacheKey(storedRawValue: $0) },
                    lastRun: Date(timeIntervalSince1970: row["last_run"]),
                    lastError: row["last_error"]
                )
            }
        }
    }

    /// The recorded days of the series at `location`, oldest first. A day recorded as cached whose
    /// entry is gone (purged) reads as planned.
    public func seriesDays(location: String) async throws -> [SeriesDayRecord] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT day, key, url, state, reason, EXISTS (SELECT 1 FROM entry WHERE entry.key = series_day.key) AS stored
                    FROM series_day WHERE location = ? ORDER BY day
                    """,
                arguments: [location]
            ).compactMap { row in
                guard let day = CalendarDay(parsing: row["day"]), var state = SeriesDayRecord.State(rawValue: row["state"]) else {
                    return nil
                }
                if state == .cached, !(row["stored"] as Bool) {
                    state = .planned
                }
                return SeriesDayRecord(
                    day: day, key: CacheKey(storedRawValue: row["key"]), url: row["url"], state: state, reason: row["reason"])
            }
        }
    }

    /// Each recorded series summed up at `now`: today is the day of `now` in the series' own zone
    /// (the machine's when the recorded zone is unknown), so a series recorded yesterday with
    /// tomorrow's file in shows today ready.
    public func seriesSummaries(at now: Date) async throws -> [SeriesSummary] {
        var summaries: [SeriesSummary] = []
        for record in try await self.series() {
            let today = CalendarDay(now, in: TimeZone(identifier: record.timeZone) ?? .current)
            let days = try await self.seriesDays(location: record.location)
            let past = days.filter { $0.day < today }
            let future = days.filter { $0.day > today }
            summaries.append(
                SeriesSummary(
                    record: record,
                    today: today,
                    todayReady: days.contains { $0.day == today && $0.state == .cached },
                    pastDays: past.count,
                    pastCached: past.count { $0.state == .cached },
                    futureDays: future.count,
                    futureCached: future.count { $0.state == .cached },
                    newestCached: days.last { $0.state == .cached }?.day,
                    missing: days.count { $0.state == .missing }
                )
            )
        }
        return summaries
    }
}

extension Store {
    /// Forgets the series at `location` (a list that no longer names it would otherwise show it
    /// forever): removes its records and the entries of its days and manifest that no game's file
    /// list, page record or other series names, deleting body files nothing else references.
    /// Returns how many entries were removed, or nil when no such series is recorded. One write
    /// transaction.
    public func removeSeries(location: String) async throws -> Int? {
        try await self.write { db, released in
            guard let manifestKey = try Row.fetchOne(db, sql: "SELECT manifest_key FROM series WHERE location = ?", arguments: [location])
            else {
                return nil
            }
            var candidates = try String.fetchAll(db, sql: "SELECT key FROM series_day WHERE location = ?", arguments: [location])
            if let key: String = manifestKey["manifest_key"] {
                candidates.append(key)
            }
            try db.execute(sql: "DELETE FROM series_day WHERE location = ?", arguments: [location])
            try db.execute(sql: "DELETE FROM series WHERE location = ?", arguments: [location])
            var keys: [String] = []
            for key in Set(candidates) {
                let named = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS(SELECT 1 FROM series_day WHERE key = :key)
                            OR EXISTS(SELECT 1 FROM series WHERE manifest_key = :key)
                            OR EXISTS(SELECT 1 FROM precache_page WHERE key = :key)
                            OR EXISTS(SELECT 1 FROM game_file WHERE key = :key AND NOT (state = :failed AND reason IS :purged))
                        """,
                    arguments: ["key": key, "failed": ListedFileState.failed.rawValue, "purged": Self.purgedReason]
                )
                if named != true {
                    keys.append(key)
                }
            }
            var removed = 0
            for batch in keys.batches(of: Self.keysPerQuery) {
                removed += try self.deleteEntries(db, keys: batch, releasing: &released).count
            }
            return removed
        }
    }
}
