import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

/// Turns reports into the values the templates render: every number and time already formatted
/// for people, every optional value either present or `false` (so a missing value never makes
/// Mustache look it up in an enclosing section instead).
///
/// The values are plain dictionaries: swift-mustache reads them by key, where a struct would be
/// read by reflection on every lookup.
struct DevOfflineViews {
    /// The moment the page describes.
    let now: Date

    /// What the header bar and the footer of every page show.
    struct Frame {
        /// The page title.
        var title: String
        /// Offline mode, the app's origins that cannot be reached, or online.
        var connectivity: Connectivity
        /// Where a control on this page returns to (a path and query of /dev/offline).
        var returnPath: String
        /// A message to show once, from the control that redirected here.
        var flash: String?
    }

    /// How many unreachable origins the badge names (the rest are counted).
    static let unreachableNamed = 3

    func frame(_ frame: Frame) -> [String: Any] {
        let offline = frame.connectivity.state == .offline
        let unreachable = frame.connectivity.unreachableOrigins
        var unreachableBadge: Any = false
        if frame.connectivity.state == .originsUnreachable {
            let shown = unreachable.prefix(Self.unreachableNamed).joined(separator: ", ")
            let more = unreachable.count > Self.unreachableNamed ? " and \(unreachable.count - Self.unreachableNamed) more" : ""
            unreachableBadge = ["label": "Origins unreachable (\(unreachable.count))", "names": shown + more]
        }
        return [
            "title": frame.title,
            "offline": offline,
            "online": frame.connectivity.state == .online,
            "toggleValue": offline ? "off" : "on",
            "toggleLabel": offline ? "Go online" : "Go offline",
            "unreachable": unreachableBadge,
            "returnPath": frame.returnPath,
            "flash": Self.optional(frame.flash),
            "generatedISO": HumanFormat.iso(self.now),
            "generatedExact": HumanFormat.exact(self.now),
        ]
    }

    // MARK: - Overview

    func overview(_ report: OfflineReport, frame: Frame, recentCapacity: Int) -> [String: Any] {
        var values = self.frame(frame)
        let (ready, wanted) = report.readyCounts
        let skipped = report.games.count - wanted
        values["readySummary"] = report.games.isEmpty ? false : Self.readySummary(report.games)
        var gamesNote = "\(ready) of \(wanted) ready offline"
        if skipped > 0 { gamesNote += " · \(skipped) skipped" }
        values["gamesNote"] = report.games.isEmpty ? "" : gamesNote
        values["gameCards"] = report.games.map(self.gameCard)
        values.merge(self.series(report, returnPath: frame.returnPath)) { $1 }
        values.merge(self.keptNoStore(report, returnPath: frame.returnPath)) { $1 }

        let pagesCached = report.pages.filter(\.isCached).count
        values["hasPages"] = !report.pages.isEmpty
        values["pagesNote"] = "\(pagesCached) of \(report.pages.count) cached"
        values["pageRows"] = report.pages.map { page -> [String: Any] in
            var row = self.times("lastRun", page.lastRun)
            row["url"] = page.url
            row["state"] = page.state
            row["reason"] = page.reason ?? ""
            return row
        }

        values["hasWriteQueue"] = report.writeQueue?.origins.isEmpty == false
        if let queue = report.writeQueue {
            values.merge(self.writeQueueValues(queue)) { _, new in new }
        }
        values["hasDeclared"] = report.declaredRequests?.isEmpty == false
        values["declaredRows"] = self.declaredRequestRows(report.declaredRequests ?? [])
        values["extraRows"] = report.extraURLs.map { extra in self.extraRow(extra, games: report.games) }
        values["hasExtraRows"] = !report.extraURLs.isEmpty
        let answered = report.answeredOffline
        values["hasAnsweredOffline"] = answered.map { !$0.entries.isEmpty || $0.problem != nil } ?? false
        values["answeredOfflineFile"] = answered?.file ?? ""
        values["answeredOfflineProblem"] = Self.optional(answered?.problem)
        values["answeredOfflineRows"] = (answered?.entries ?? []).map { ["method": $0.method, "url": $0.url] }
        values["hasOfflineMisses"] = report.offlineMisses != nil
        values["missGroups"] = (report.offlineMisses?.groups ?? []).map(self.missGroup)
        let browserMisses = report.offlineMisses?.browserMisses ?? []
        values["hasBrowserMisses"] = !browserMisses.isEmpty
        values["browserMissRows"] = browserMisses.map(self.browserMissRow)
        values["missesNote"] =
            report.offlineMisses.map { misses in
                misses.urls == 0 ? "" : "newest first; \(misses.urls) URL\(misses.urls == 1 ? "" : "s"), up to \(misses.capacity) kept"
            } ?? ""

        let store = report.store
        if let failures = report.storeWriteFailures {
            values["storeFailureText"] =
                "\(HumanFormat.count(failures.failures)) responses could not be stored since \(HumanFormat.relative(failures.since, now: report.generatedAt)): \(failures.lastError). What is cached is still served."
        } else {
            values["storeFailureText"] = false
        }
        values["entriesCount"] = HumanFormat.count(store.entries)
        values["bytes"] = HumanFormat.bytes(store.bytes)
        values["precachedCount"] = HumanFormat.count(store.precachedEntries)
        values["precachedBytes"] = HumanFormat.bytes(store.precachedBytes)
        values["runtimeCount"] = HumanFormat.count(store.runtimeEntries)
        values["runtimeBytes"] = HumanFormat.bytes(store.runtimeBytes)
        if let maxSize = store.maxSize, maxSize > 0 {
            let share = HumanFormat.percent(store.bytes, of: maxSize) ?? "0%"
            values["budgetText"] =
                "Using \(HumanFormat.bytes(store.bytes)) of the \(HumanFormat.bytes(maxSize)) budget (\(share)); runtime entries are evicted least recently used first."
            let percent = min(100, Int((Double(store.bytes) / Double(maxSize) * 100).rounded()))
            values["budgetPercent"] = String(max(percent, store.bytes > 0 ? 1 : 0))
            values["budgetFull"] = percent >= 100
        } else {
            values["budgetText"] = "No size budget set (start with --max-size to set one)."
            values["budgetPercent"] = false
            values["budgetFull"] = false
        }
        // Queued writes are kept apart from the budget (docs/SERVING.md, "Write queue limits"): said here, not hidden.
        if let queue = report.writeQueue, let bytes = queue.bytes, bytes > 0, let text = values["budgetText"] as? String {
            let limit = queue.maxBytes.map { ", under their own limit of \(HumanFormat.bytes($0))" } ?? ""
            values["budgetText"] = text + " Queued writes hold \(HumanFormat.bytes(bytes)) besides, not in this budget\(limit)."
        }

        if let jobs = report.pageJobs {
            let use = jobs.origins.map { "\($0.origin): \(HumanFormat.count($0.jobs)) jobs, \(HumanFormat.bytes($0.bytes))" }
            values["pageJobsText"] =
                "Pages of other sites may ask Larder to precache their own pages: at most \(jobs.maximumUnfinished) jobs at once, "
                + "\(jobs.jobsPerHour) jobs and \(HumanFormat.bytes(jobs.bytesPerHour)) an hour per site"
                + (jobs.allOriginsJobsPerHour.map { jobsTogether in
                    " (\(jobsTogether) jobs and \(HumanFormat.bytes(jobs.allOriginsBytesPerHour ?? 0)) an hour for all sites together)"
                } ?? "")
                + ", kept as runtime entries (evicted like any). "
                + (use.isEmpty ? "None did in the past hour." : "In the past hour: " + use.joined(separator: "; ") + ".")
        } else {
            values["pageJobsText"] = false
        }

        let requests = report.requests ?? RequestCounts([:])
        if let client = report.upstreamClient {
            values["upstreamClient"] = client
        }
        values["startedRelative"] = report.startedAt.map { "the proxy started, " + HumanFormat.relative($0, now: self.now) } ?? "start"
        values["hits"] = HumanFormat.count(requests.hits)
        values["misses"] = HumanFormat.count(requests.misses)
        values["offlineMissCount"] = HumanFormat.count(requests.offlineMisses)
        values["stale"] = HumanFormat.count(requests.stale)
        values["errors"] = HumanFormat.count(requests.errors)
        values["bypassed"] = HumanFormat.count(requests.bypassed)
        values["hitRatio"] = requests.hitRatio.map { "\(Int(($0 * 100).rounded()))%" } ?? "–"

        let hosts = report.upstream ?? []
        let appHosts = hosts.filter { $0.browser != true }
        let browserHosts = hosts.filter { $0.browser == true }
        values["hasHosts"] = !appHosts.isEmpty
        values["hostRows"] = appHosts.map(self.hostRow)
        values["hasBrowserHosts"] = !browserHosts.isEmpty
        values["browserHostRows"] = browserHosts.map(self.hostRow)

        let entries = report.entries
        let rows = entries?.entries ?? []
        values["hasEntryRows"] = !rows.isEmpty
        values["entryRows"] = rows.map(self.entryRow)
        values["moreEntries"] = entries?.hasMore ?? false
        values["entriesNote"] = rows.isEmpty ? "" : "most recently stored first; \(rows.count) of \(HumanFormat.count(store.entries))"

        let recent = report.recentRequests ?? []
        values["recentCapacity"] = String(recentCapacity)
        values["hasRecentRows"] = !recent.isEmpty
        values["recentRows"] = recent.map(self.recentRow)
        return values
    }

    /// One sentence that answers "which games work offline right now".
    static func readySummary(_ games: [GameReport]) -> String {
        let wanted = games.filter { $0.state != .skipped }
        guard !wanted.isEmpty else {
            return games.isEmpty ? "No game is precached yet." : "Every listed game is skipped by its manifest."
        }
        let notReady = wanted.filter { !$0.ready }
        if notReady.isEmpty {
            return wanted.count == 1 ? "\(wanted[0].name) works offline right now." : "All \(wanted.count) games work offline right now."
        }
        let names = notReady.prefix(4).map { "\($0.name) (\($0.readiness))" }.joined(separator: ", ")
        let more = notReady.count > 4 ? " and \(notReady.count - 4) more" : ""
        let readyCount = wanted.count - notReady.count
        return "\(readyCount) of \(wanted.count) games work offline right now. Not ready: \(names)\(more)."
    }

    func gameCard(_ game: GameReport) -> [String: Any] {
        var card = self.times("lastPrecache", game.lastPrecache)
        card["slug"] = game.slug
        card["name"] = game.name
        card["detail"] = game.detail
        card["state"] = game.state.rawValue
        card["readiness"] = game.readiness
        card["root"] = game.root
        card["manifestURL"] = game.manifestURL
        card["cardClass"] = game.ready ? "ready" : (game.state == .skipped ? "skipped" : "not-ready")
        card["mark"] = game.ready ? "✓" : (game.state == .skipped ? "–" : "✗")
        card["facts"] = Self.facts(game)
        // A last error that names one of the missing files listed below would say it twice.
        let repeatsMissing = game.missing.contains { game.lastError?.hasPrefix($0.url) == true }
        card["lastError"] = repeatsMissing ? false : Self.optional(game.lastError)
        card["hasMissing"] = !game.missing.isEmpty
        card["missingFiles"] = game.missing.map { file -> [String: Any] in
            ["url": file.url, "why": Self.why(file)]
        }
        let unlisted = game.filesMissing - game.missing.count
        card["moreMissing"] =
            unlisted > 0 ? "\(game.missing.isEmpty ? "" : "and ")\(unlisted) more missing file\(unlisted == 1 ? "" : "s") →" : false
        let misses = game.offlineMisses ?? []
        card["offlineMissNote"] =
            misses.isEmpty
            ? false
            : "\(misses.count == 1 ? "1 request" : "\(misses.count) requests") could not be answered offline since the last precache:"
        card["offlineMissRows"] = misses.prefix(OfflineReport.missingShown).map { self.missRow($0, game: game.slug) }
        return card
    }

    /// One group of offline misses: an origin, and a game when they belong to one.
    func missGroup(_ group: OfflineMissGroup) -> [String: Any] {
        [
            "origin": group.origin,
            "gameName": Self.optional(group.gameName),
            "gameDetail": group.game.map { "\(DevOfflinePages.root)/games/\($0)" } ?? "",
            "missRows": group.misses.map { self.missRow($0, game: group.game) },
        ]
    }

    /// One offline miss, with what the add-to-precache form needs (`game` is empty without one).
    func missRow(_ miss: OfflineMiss, game: String?) -> [String: Any] {
        var row = self.times("lastSeen", miss.lastSeen)
        row["url"] = miss.url
        row["game"] = game ?? ""
        row["method"] = miss.upgrade.map { "\(miss.method) (\($0))" } ?? miss.method
        row["count"] = HumanFormat.count(miss.count)
        row["reason"] = OfflineMissNote.label(miss.reason)
        row["referer"] = miss.referer ?? ""
        let healthCheck = miss.causes?.contains("health-check") == true
        let noStore = miss.causes?.contains(OfflineMissNote.notStoredNoStore) == true
        // Precache fetches with GET; another method's miss, or a stream's, cannot be cured that
        // way, nor a health check, which is never answered from the cache while the site is down,
        // nor a page its site marks no-store (precache would fetch it without the user's cookie).
        row["canPrecache"] = (miss.method == "GET" || miss.method == "HEAD") && miss.upgrade == nil && !healthCheck && !noStore
        // A read sent as POST (the method's miss, not a queued write): offered to Answer offline,
        // until it is.
        row["canAnswerOffline"] =
            miss.methodNotStored == true && miss.fix == nil && miss.causes?.contains("declared-withheld") != true
            && AnsweredOffline.Entry(url: miss.url, method: miss.method) != nil
        row["note"] = miss.note ?? ""
        return row
    }

    /// One offline miss of the browser's own requests.
    func browserMissRow(_ miss: OfflineMiss) -> [String: Any] {
        var row = self.times("lastSeen", miss.lastSeen)
        row["url"] = miss.url
        row["method"] = miss.method
        row["count"] = HumanFormat.count(miss.count)
        row["reason"] = OfflineMissNote.label(miss.reason)
        row["note"] = miss.note ?? ""
        return row
    }

    /// One extra URL: where it goes and what became of it.
    func extraRow(_ extra: ExtraURLReport, games: [GameReport]) -> [String: Any] {
        var row = self.times("added", extra.addedAt)
        row["url"] = extra.url
        row["state"] = extra.state
        row["reason"] = extra.reason ?? ""
        let game = extra.game.flatMap { slug in games.first { $0.slug == slug } }
        row["gameName"] = game?.name ?? extra.game ?? "every run"
        row["gameDetail"] = game.map(\.detail) ?? false
        return row
    }

    /// `4 files · 12.0 KiB` or `2 of 3 files cached · 1 missing · 8.0 KiB`.
    static func facts(_ game: GameReport) -> String {
        let size = HumanFormat.bytes(game.bytes)
        switch game.state {
        case .skipped:
            return "skipped by its manifest"
        case _ where game.filesListed == 0:
            return game.state == .failed ? "no file list: the manifest could not be used" : "the manifest lists no file"
        case _ where game.state == .ready && game.filesMissing == 0:
            return "\(HumanFormat.count(game.filesListed)) file\(game.filesListed == 1 ? "" : "s") · \(size)"
        default:
            return
                "\(HumanFormat.count(game.filesCached)) of \(HumanFormat.count(game.filesListed)) files cached · \(HumanFormat.count(game.filesMissing)) missing · \(size)"
        }
    }

    /// `failed: answered HTTP 404`, `excluded`, `missing: ...`.
    static func why(_ file: GameFileReport) -> String {
        guard let reason = file.reason, !reason.isEmpty else { return file.state }
        return "\(file.state): \(reason)"
    }

    func hostRow(_ host: HostReport) -> [String: Any] {
        [
            "host": host.origin,
            "state": host.state,
            "failures": String(host.consecutiveFailures),
            "lastError": host.lastError ?? "",
            "backoffUntil": host.backoffUntil.map { HumanFormat.relative($0, now: self.now) } ?? false,
            "backoffExact": host.backoffUntil.map(HumanFormat.exact) ?? "",
            "lastSuccess": host.lastSuccess.map { HumanFormat.relative($0, now: self.now) } ?? false,
            "lastSuccessExact": host.lastSuccess.map(HumanFormat.exact) ?? "",
        ]
    }

    func entryRow(_ entry: EntrySummary) -> [String: Any] {
        var row = self.times("stored", entry.storedAt)
        row.merge(self.times("served", entry.lastUsed)) { first, _ in first }
        row["url"] = entry.url
        row["key"] = entry.key.rawValue
        row["status"] = String(entry.status)
        row["contentType"] = entry.contentType ?? ""
        row["size"] = HumanFormat.bytes(entry.bodySize)
        row["served"] = entry.lastUsed > entry.storedAt
        row["kind"] = entry.kind.rawValue
        return row
    }

    func recentRow(_ request: RecentRequest) -> [String: Any] {
        var row = self.times("time", request.time)
        row["method"] = request.method
        row["url"] = request.url
        row["status"] = String(request.status)
        row["outcome"] = request.outcome.rawValue
        row["cacheStatus"] = request.cacheStatus ?? ""
        row["milliseconds"] = String(format: "%.1f", request.milliseconds)
        return row
    }

    // MARK: - Entry list

    func entries(_ list: EntryListReport, frame: Frame, storeEntries: Int) -> [String: Any] {
        var values = self.frame(frame)
        let query = list.query ?? ""
        values["query"] = query.isEmpty ? false : query
        values["minimumSearchLength"] = String(Store.minimumSearchLength)
        values["sortOptions"] = [(EntrySort.recent, "most recently stored"), (.size, "largest first"), (.url, "by URL")].map {
            sort, label -> [String: Any] in
            ["value": sort.rawValue, "label": label, "selected": sort == list.sort]
        }
        values["entriesNote"] = "\(HumanFormat.count(storeEntries)) in the cache"
        values["hasEntryRows"] = !list.entries.isEmpty
        values["entryRows"] = list.entries.map(self.entryRow)
        values["page"] = String(list.page)
        values["tooShort"] = list.isQueryTooShort
        values["noResult"] = !query.isEmpty && !list.isQueryTooShort && list.total == 0
        let pastEnd = list.entries.isEmpty && list.page > 1 && list.total > 0
        values["pastEnd"] = pastEnd
        values["firstHref"] = Self.entriesHref(query: query, sort: list.sort, page: 1)

        let total = list.isTotalExact ? HumanFormat.count(list.total) : "\(HumanFormat.count(list.total))+"
        let matching = query.isEmpty ? "" : " whose URL contains “\(query)”"
        if list.entries.isEmpty {
            values["resultText"] = query.isEmpty && list.total == 0 ? "The cache is empty." : ""
        } else {
            let first = (list.page - 1) * list.pageSize + 1
            let last = first + list.entries.count - 1
            values["resultText"] = "Entries \(HumanFormat.count(first))–\(HumanFormat.count(last)) of \(total)\(matching)."
        }
        let pageCount = (list.total + list.pageSize - 1) / list.pageSize
        values["pageCount"] = list.isTotalExact && pageCount > 0 ? String(pageCount) : false
        values["previousHref"] = list.page > 1 && !pastEnd ? Self.entriesHref(query: query, sort: list.sort, page: list.page - 1) : false
        values["nextHref"] = list.hasMore ? Self.entriesHref(query: query, sort: list.sort, page: list.page + 1) : false
        return values
    }

    /// `/dev/offline/entries?q=...&sort=...&page=N`, leaving out what is default.
    static func entriesHref(query: String, sort: EntrySort, page: Int) -> String {
        var pairs: [(String, String)] = []
        if !query.isEmpty { pairs.append(("q", query)) }
        if sort != .recent { pairs.append(("sort", sort.rawValue)) }
        if page > 1 { pairs.append(("page", String(page))) }
        let path = "\(DevOfflinePages.root)/entries"
        return pairs.isEmpty ? path : path + "?" + FormFields.encode(pairs)
    }

    // MARK: - Game

    func game(_ detail: GameDetailReport, frame: Frame) -> [String: Any] {
        var values = self.frame(frame)
        values.merge(self.gameCard(detail.game)) { _, card in card }
        let game = detail.game
        values["lastError"] = Self.optional(game.lastError)
        values["verdict"] = Self.verdict(game)
        values["filesNote"] = "\(HumanFormat.count(detail.files.count)) listed"
        values["extraRows"] = detail.extraURLs.map { self.extraRow($0, games: [game]) }
        values["hasExtraRows"] = !detail.extraURLs.isEmpty
        values["missRows"] = (game.offlineMisses ?? []).map { self.missRow($0, game: game.slug) }
        values["hasFileRows"] = !detail.files.isEmpty
        values["fileRows"] = detail.files.map { file -> [String: Any] in
            [
                "url": file.url,
                "state": file.state,
                "reason": file.reason ?? "",
                "size": file.bodySize.map(HumanFormat.bytes) ?? "",
            ]
        }
        if let job = detail.job {
            var state = job.state
            if job.filesToFetch > 0 || job.state == "finished" {
                state += ", \(job.filesDone) of \(job.filesToFetch) files fetched"
                if job.filesFailed > 0 { state += ", \(job.filesFailed) failed" }
            }
            values["job"] =
                [
                    "jobID": job.id,
                    "jobState": state,
                    "jobHref": "\(PrecacheAPIPath.path)/\(job.id)",
                ] as [String: Any]
        } else {
            values["job"] = false
        }
        return values
    }

    /// What the game page says first.
    static func verdict(_ game: GameReport) -> String {
        if game.ready {
            return "Ready: all \(HumanFormat.count(game.filesListed)) listed files are cached, so \(game.name) works offline."
        }
        let misses = game.offlineMisses?.count ?? 0
        switch game.state {
        case .skipped:
            return "Skipped: its manifest says \"skip\": true, so Larder does not precache it."
        case .ready where game.filesMissing == 0 && game.unstoredByPage != nil:
            let urls = game.unstoredByPage ?? []
            return
                "Not ready: all \(HumanFormat.count(game.filesListed)) listed files are cached, but its page names \(urls.count == 1 ? "a script or style" : "\(urls.count) scripts or styles") of its own origin that \(urls.count == 1 ? "is" : "are") not stored, so a fresh browser would miss \(urls.count == 1 ? "it" : "them") offline: \(urls.prefix(5).joined(separator: ", "))\(urls.count > 5 ? ", …" : ""). Add \(urls.count == 1 ? "it" : "them") to the game's manifest, or load the game once online."
        case .ready where game.filesMissing == 0 && misses > 0:
            return
                "Not ready: all \(HumanFormat.count(game.filesListed)) listed files are cached, but \(misses == 1 ? "1 request" : "\(misses) requests") under \(game.name) or from its page could not be answered while the origin could not since its last precache. Add \(misses == 1 ? "it" : "them") to precache below."
        case .failed where game.filesListed == 0:
            return "Not ready: the last precache failed\(game.lastError.map { " (\($0))" } ?? ""). Precache it again when online."
        default:
            let missing = game.filesMissing
            return
                "Not ready: \(HumanFormat.count(missing)) of \(HumanFormat.count(game.filesListed)) listed files \(missing == 1 ? "is" : "are") not cached; the list below says why. Precache it again when online."
        }
    }

    // MARK: - Notice

    func notice(heading: String, paragraphs: [String], frame: Frame) -> [String: Any] {
        var values = self.frame(frame)
        values["heading"] = heading
        values["paragraphs"] = paragraphs
        return values
    }

    // MARK: - Helpers

    /// `NAMERelative`, `NAMEExact` and `NAMEISO` for `date`.
    func times(_ name: String, _ date: Date) -> [String: Any] {
        [
            "\(name)Relative": HumanFormat.relative(date, now: self.now),
            "\(name)Exact": HumanFormat.exact(date),
            "\(name)ISO": HumanFormat.iso(date),
        ]
    }

    /// The value, or `false` for a missing one.
    static func optional(_ value: String?) -> Any {
        guard let value, !value.isEmpty else { return false }
        return value
    }
}
