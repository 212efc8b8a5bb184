import Foundation
import LarderHTTP

extension DevOfflineViews {
    /// The values of the overview's series section: one row per series with its refresh control.
    func series(_ report: OfflineReport, returnPath: String) -> [String: Any] {
        let series = report.series ?? []
        let ready = series.filter(\.todayReady).count
        return [
            "hasSeries": !series.isEmpty,
            "seriesNote": "today ready for \(ready) of \(series.count)",
            "seriesRows": series.map { item -> [String: Any] in
                var row = self.times("lastRun", item.lastRun)
                row["location"] = item.location
                row["kind"] = item.kind
                row["timeZone"] = item.timeZone
                row["today"] = item.today
                row["readiness"] = item.readiness
                row["state"] = item.todayReady ? "ready" : "missing"
                row["facts"] = item.facts
                row["lastError"] = Self.optional(item.lastError)
                row["returnPath"] = returnPath
                return row
            },
        ]
    }
}

extension DevOfflineTemplates {
    /// The overview's series section: each series, today's state in its own zone, and "Refresh now"
    /// (a POST form, checked like every control by `SameOriginCheck`).
    static let seriesSection = """
        {{#hasSeries}}
        <h2 id="series">Dated series <small>{{seriesNote}}</small></h2>
        <div class="scroll"><table>
        <thead><tr><th>Series</th><th>Today</th><th>Days</th><th>Precached</th><th></th></tr></thead>
        <tbody>
        {{#seriesRows}}<tr>
        <td class="url mono">{{location}} <span class="muted small">{{kind}}</span>{{#lastError}}<div class="error">Last error: {{lastError}}</div>{{/lastError}}</td>
        <td><span class="pill {{state}}">{{readiness}}</span> <span class="small">{{today}} ({{timeZone}})</span></td>
        <td>{{facts}}</td>
        <td><time datetime="{{lastRunISO}}" title="{{lastRunExact}}">{{lastRunRelative}}</time></td>
        <td><form class="inline" method="post" action="/dev/offline/actions/refresh-series"><input type="hidden" name="series" value="{{location}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Precache this series now: today first, then the missing days">Refresh now</button></form>
        <form class="inline" method="post" action="/dev/offline/actions/remove-series"><input type="hidden" name="series" value="{{location}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="danger small" type="submit" title="Forget this series and remove its days from the cache">Remove</button></form></td>
        </tr>
        {{/seriesRows}}
        </tbody></table></div>
        {{/hasSeries}}
        """
}

extension DevOfflineActions {
    /// `remove-series` (`series`): forgets a series a games list no longer names, with its days'
    /// entries that nothing else lists (``Store/removeSeries(location:)``).
    func removeSeries(_ fields: FormFields, back: String) async throws -> DevOfflinePages.Response {
        let location = fields["series"] ?? ""
        guard let removed = try await self.pages.store.removeSeries(location: location) else {
            return Self.redirect(back, flash: "No series \(location) is recorded.")
        }
        return Self.redirect(back, flash: "Removed the series \(location) and \(removed) of its entries.")
    }

    /// `refresh-series` (`series`: its manifest URL or template): queues a precache job for the
    /// series' recorded games.txt line, like `POST /dev/offline/precache`, reaching only what
    /// `reach` allows (the client's, ``UpstreamReach``).
    func refreshSeries(_ fields: FormFields, origin: String?, reach: UpstreamReach?, back: String) async throws
        -> DevOfflinePages.Response
    {
        let location = fields["series"] ?? ""
        guard let record = try await self.pages.store.series().first(where: { $0.location == location }) else {
            return Self.redirect(back, flash: "No series \(location) is recorded.")
        }
        switch try await self.pages.proxy.submitPrecache(lines: [record.line], source: "/dev/offline", requestedBy: origin, reach: reach) {
        case .nothingToPrecache(let problems):
            return Self.redirect(back, flash: "Cannot precache \(location): \(problems.joined(separator: "; "))")
        case .refused(let url):
            return Self.redirect(back, flash: "Cannot precache \(url).")
        case .queued(let id, _):
            return Self.redirect(back, flash: "Refreshing \(location): today first, then the missing days (job \(id)).")
        }
    }
}
