import Foundation
import LarderHTTP
import LarderPrecache

/// The text summary printed at the end of `larder precache`.
struct PrecacheSummary {
    let report: PrecacheReport
    let cacheDirectory: String

    var text: String {
        var lines: [String] = []
        if !self.report.games.isEmpty {
            lines.append("Games:")
            for game in self.report.games {
                let name = game.displayName.map { "\($0) (\(game.slug))" } ?? game.slug
                let label: String
                switch game.state {
                case .ready where game.previousVersionKept: label = "not updated"
                case .ready: label = "ready"
                case .partial: label = "partial \(game.filesCached) of \(game.filesListed)"
                case .failed: label = "failed"
                case .skipped: label = "skipped"
                }
                var line = "  \(label.padding(toLength: 16, withPad: " ", startingAt: 0)) \(name)"
                if game.state == .ready || game.state == .partial {
                    line += "  \(game.filesCached) file\(game.filesCached == 1 ? "" : "s"), \(ByteFormat.string(game.bytes))"
                }
                lines.append(line)
                if let error = game.error, game.state == .failed || game.previousVersionKept {
                    lines.append("      \(error)")
                }
                for failure in game.failures.prefix(50) {
                    lines.append("      \(failure.url): \(failure.reason)")
                }
                if game.failures.count > 50 {
                    lines.append("      ... and \(game.failures.count - 50) more (see --json)")
                }
            }
        }
        lines += self.seriesLines
        let pagesCached = self.report.pagesListed - self.report.pageFailures.count
        lines.append("Pages: \(pagesCached) of \(self.report.pagesListed) cached")
        for failure in self.report.pageFailures {
            lines.append("      \(failure.url): \(failure.reason)")
        }
        if !self.report.listProblems.isEmpty {
            lines.append("Problems in the list:")
            lines += self.report.listProblems.map { "  \($0)" }
        }
        var totals =
            "Totals: \(self.report.alreadyCached) already cached, \(self.report.downloaded) downloaded (\(ByteFormat.string(self.report.downloadedBytes))), \(self.report.failed) failed"
        if self.report.excluded > 0 { totals += ", \(self.report.excluded) excluded" }
        if self.report.removed > 0 { totals += ", \(self.report.removed) no longer listed and removed" }
        totals += String(format: " in %.1f s", self.report.seconds)
        lines.append(totals)
        lines.append(
            self.report.succeeded
                ? "Everything listed is ready offline (cache: \(self.cacheDirectory))."
                : "Some of it is not ready offline; see the failures above.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each series: today's state, the days cached, and every missing day with its reason.
    private var seriesLines: [String] {
        guard !self.report.series.isEmpty else { return [] }
        var lines = ["Series:"]
        for series in self.report.series {
            let label = series.error != nil ? "failed" : series.todayReady ? "today ready" : "today not ready"
            var line = "  \(label.padding(toLength: 16, withPad: " ", startingAt: 0)) \(series.location)"
            if series.error == nil {
                line += "  today \(series.today) (\(series.timeZone)), past \(series.pastCached) of \(series.pastDays)"
                line += ", \(series.daysCached) of \(series.daysListed) days cached"
                if let newest = series.newestCached { line += ", newest \(newest)" }
                if !series.missing.isEmpty { line += ", missing \(series.missing.count)" }
            }
            lines.append(line)
            if let error = series.error {
                lines.append("      \(error)")
            }
            for day in series.missing.prefix(50) {
                lines.append("      \(day.date) \(day.url): \(day.reason)")
            }
            if series.missing.count > 50 {
                lines.append("      ... and \(series.missing.count - 50) more (see --json)")
            }
        }
        return lines
    }
}
