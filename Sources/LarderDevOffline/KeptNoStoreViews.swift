import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

extension DevOfflineViews {
    /// The values of the overview's section on pages marked `no-store`: the sites kept, each with
    /// **Stop keeping**, and the sites seen sending `no-store`, each with **Keep this site's pages
    /// for offline use**.
    func keptNoStore(_ report: OfflineReport, returnPath: String) -> [String: Any] {
        let section = report.keptNoStore
        let kept = section?.kept ?? []
        let candidates = section?.candidates ?? []
        return [
            "hasKeptNoStore": !kept.isEmpty || !candidates.isEmpty || section?.problem != nil,
            "keptNoStoreFile": section?.file ?? "",
            "keptNoStoreProblem": Self.optional(section?.problem),
            "hasNoStoreRows": !candidates.isEmpty,
            "keptNoStoreRows": kept.map { ["origin": $0, "returnPath": returnPath] },
            "noStoreRows": candidates.map { site -> [String: Any] in
                var row = self.times("lastSeen", site.lastSeen)
                row["origin"] = site.origin
                row["count"] = HumanFormat.count(site.count)
                row["latestURL"] = site.latestURL
                row["returnPath"] = returnPath
                return row
            },
        ]
    }
}

extension DevOfflineTemplates {
    /// The overview's section on pages marked `no-store` (POST forms, checked like every control
    /// by `SameOriginCheck`).
    static let keptNoStoreSection = """
        {{#hasKeptNoStore}}
        <h2 id="kept-no-store">Pages marked no-store <small>the site asked that they never be stored; kept for you alone, used only while the site cannot answer, once you choose; in {{keptNoStoreFile}}</small></h2>
        {{#keptNoStoreProblem}}<div class="error">{{keptNoStoreProblem}}</div>{{/keptNoStoreProblem}}
        {{#keptNoStoreRows}}<div><span class="mono">{{origin}}</span>: its pages are kept for offline use. <form class="inline" method="post" action="/dev/offline/actions/stop-keeping-no-store"><input type="hidden" name="origin" value="{{origin}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="danger small" type="submit" title="Stop keeping this site's no-store pages and remove the copies kept so far">Stop keeping</button></form></div>
        {{/keptNoStoreRows}}
        {{#hasNoStoreRows}}<div class="scroll"><table>
        <thead><tr><th>Site</th><th>Latest page not kept</th><th class="num">Count</th><th>Last seen</th><th></th></tr></thead>
        <tbody>{{/hasNoStoreRows}}
        {{#noStoreRows}}<tr><td class="mono">{{origin}}</td><td class="url mono">{{latestURL}}</td><td class="num">{{count}}</td><td><time datetime="{{lastSeenISO}}" title="{{lastSeenExact}}">{{lastSeenRelative}}</time></td>
        <td><form class="inline" method="post" action="/dev/offline/actions/keep-no-store"><input type="hidden" name="origin" value="{{origin}}"><input type="hidden" name="return" value="{{returnPath}}"><button class="small" type="submit" title="Keep the pages this site marks no-store, for you alone, to show only while it cannot answer">Keep this site's pages for offline use</button></form></td></tr>
        {{/noStoreRows}}
        {{#hasNoStoreRows}}</tbody></table></div>{{/hasNoStoreRows}}
        {{/hasKeptNoStore}}
        """
}

extension DevOfflineActions {
    /// `keep-no-store` and `stop-keeping-no-store` (`origin`): keeps a site's `no-store` pages for
    /// offline use from its next online visit (``KeptNoStore``), or stops and removes the copies
    /// kept so far (``Store/removeRuntimeEntries(withPrefix:where:)``).
    func keepNoStore(_ name: String, _ fields: FormFields, back: String) async throws -> DevOfflinePages.Response {
        guard let file = self.pages.settings.keptNoStoreFile, let origin = HTTPURL.canonicalOrigin(fields["origin"] ?? "") else {
            return Self.redirect(back, flash: "Only an http(s) origin's pages can be kept.")
        }
        let changed: Bool
        do {
            changed =
                name == "keep-no-store"
                ? try self.pages.proxy.keepNoStore(origin: origin, at: self.pages.now())
                : try self.pages.proxy.stopKeepingNoStore(origin: origin)
        } catch {
            return Self.redirect(back, flash: "Not changed: \(error)")
        }
        if name == "keep-no-store" {
            return Self.redirect(
                back,
                flash: changed
                    ? "\(origin)'s no-store pages will be kept for offline use, for you alone, from your next online visit (\(file))."
                    : "\(origin)'s no-store pages are already kept.")
        }
        let removed = try await Self.removeKeptCopies(of: origin, from: self.pages.store)
        return Self.redirect(
            back,
            flash: changed
                ? "\(origin)'s no-store pages are no longer kept; removed \(HumanFormat.count(removed)) kept \(removed == 1 ? "copy" : "copies")."
                : "\(origin)'s no-store pages were not kept.")
    }

    /// Removes the copies of `origin`'s pages kept against their `no-store`
    /// (``KeptNoStore/isKept(headers:varyRequestHeaders:precached:keyed:)``); nothing else of it.
    static func removeKeptCopies(of origin: String, from store: Store) async throws -> Int {
        try await store.removeRuntimeEntries(withPrefix: origin + "/") { entry in
            KeptNoStore.isKept(
                headers: entry.headers, varyRequestHeaders: entry.varyRequestHeaders, precached: entry.kind == .precached,
                keyed: entry.key.isKeyed)
        }
    }
}
