import LarderDevOffline

extension StatusText {
    /// The dated series: today's state in each series' zone, past days cached, the newest day, misses.
    var seriesLines: [String] {
        guard let series = self.report.series, !series.isEmpty else { return [] }
        var lines = ["Series: today ready for \(series.filter(\.todayReady).count) of \(series.count)"]
        for item in series {
            let mark = item.todayReady ? "✓" : "✗"
            lines.append("  \(mark) \(item.readiness.padding(toLength: 15, withPad: " ", startingAt: 0)) \(item.location)")
            lines.append(
                "      today \(item.today) (\(item.timeZone)), \(item.facts), precached \(HumanFormat.relative(item.lastRun, now: self.now))"
            )
            if let error = item.lastError {
                lines.append("      last error: \(error)")
            }
        }
        return lines
    }
}
