import Foundation
import LarderHTTP
import LarderStore

/// A series' manifest as fetched (templates have none).
struct FetchedSeries: Sendable {
    var listing: SeriesListing?
    /// Why the manifest could not be used.
    var error: String?
    /// The stored manifest's key.
    var manifestKey: CacheKey?
}

extension PrecacheRunner {
    /// Fetches a manifest series' manifest (always from the network) and stores it as precached, so
    /// the series can be listed offline; a template series has nothing to fetch.
    func fetchSeriesManifest(_ series: SeriesSource, limiter: HostLimiter) async -> FetchedSeries {
        guard case .manifest(let url) = series.kind else {
            return FetchedSeries()
        }
        let response: SmallResponse
        do {
            response = try await self.fetchSmall(url, limit: PrecacheManifest.maximumBodySize, limiter: limiter)
        } catch {
            return FetchedSeries(error: "\(url): \(error.reason)")
        }
        do {
            let listing = try SeriesListing.parse(
                status: response.status,
                contentType: response.header("content-type"),
                body: response.body,
                manifestURL: url,
                allowCrossOrigin: self.options.allowCrossOrigin,
                queryFilter: self.options.queryFilter
            )
            let key = await self.storeSmall(response, url: url, staged: false)
            return FetchedSeries(listing: listing, manifestKey: key)
        } catch {
            return FetchedSeries(error: error.description)
        }
    }

    /// Records each series (its days as they stand after `results`) and returns its report.
    func recordSeries(
        _ plans: [SeriesPlan],
        fetched: [FetchedSeries],
        results: [CacheKey: Result<Int64, DownloadFailure>]
    ) async -> [PrecacheReport.Series] {
        let now = self.options.clock()
        var reports: [PrecacheReport.Series] = []
        for (plan, fetched) in zip(plans, fetched) {
            var days: [SeriesDayRecord] = []
            var missing: [PrecacheReport.Series.MissingDay] = []
            for day in plan.days {
                var state: SeriesDayRecord.State = day.isCached ? .cached : .planned
                var reason: String?
                switch results[day.key] {
                case .success?:
                    state = .cached
                case .failure(let failure)?:
                    state = .missing
                    reason = failure.reason
                    missing.append(.init(date: day.day.description, url: day.url.absoluteString, reason: failure.reason))
                case nil:
                    break
                }
                days.append(SeriesDayRecord(day: day.day, key: day.key, url: day.url.absoluteString, state: state, reason: reason))
            }
            let record = SeriesRecord(
                location: plan.series.location,
                line: plan.series.line,
                kind: plan.series.kindName,
                timeZone: plan.series.timeZoneName,
                manifestKey: fetched.manifestKey,
                lastRun: now,
                lastError: plan.error
            )
            do {
                // A manifest that failed keeps the days an earlier run recorded.
                if plan.error != nil {
                    try await self.store.saveSeries(record, days: try await self.store.seriesDays(location: record.location))
                } else {
                    try await self.store.saveSeries(record, days: days)
                }
            } catch {
                self.logger.error("cannot record series", metadata: ["series": "\(record.location)", "error": "\(error)"])
            }
            let cached = days.filter { $0.state == .cached }
            let past = days.filter { $0.day < plan.today }
            reports.append(
                PrecacheReport.Series(
                    location: record.location,
                    kind: record.kind,
                    timeZone: record.timeZone,
                    today: plan.today.description,
                    todayReady: cached.contains { $0.day == plan.today },
                    daysListed: days.count,
                    daysCached: cached.count,
                    pastDays: past.count,
                    pastCached: past.count { $0.state == .cached },
                    newestCached: cached.map(\.day).max()?.description,
                    missing: missing,
                    error: plan.error
                )
            )
        }
        return reports
    }
}
