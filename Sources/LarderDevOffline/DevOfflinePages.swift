import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore

/// `/dev/offline` and its JSON twins, the controls posted from it, and `/metrics`.
///
/// Routes (all at the proxy's own address; the proxy's `OwnPages` hands over only requests
/// addressed to it, through ``OwnPageResponder``):
/// - `GET /dev/offline`, `GET /dev/offline.json`: the overview.
/// - `GET /dev/offline/entries[.json]?q=TEXT&page=N&sort=recent|size|url`: the entry list.
/// - `GET /dev/offline/games/SLUG[.json]`: one game, every file with its state and reason.
/// - `POST /dev/offline/actions/{purge-entry,purge-game,precache-game,offline,clear-runtime,
///   add-to-precache,remove-extra-url,refresh-request,retry-write,drop-write,keep-no-store,
///   stop-keeping-no-store}`: the controls (see
///   ``DevOfflineActions``).
/// - `GET /metrics`: Prometheus text.
///
/// No view costs in proportion to the number of entries: counts come from the store's counters,
/// entries one page at a time from its indexes, games one record each.
public struct DevOfflinePages: OwnPageResponder {
    /// `/dev/offline`.
    static let root = "/dev/offline"
    /// Entries per page.
    static let pageSize = 50

    /// The proxy these pages are about: what it shows of itself, and the controls' actions.
    let proxy: any ProxyIntrospection
    /// What stays while the proxy runs.
    let settings: ProxySettings
    let store: Store
    let metrics: MetricsExposition
    let templates: DevOfflineTemplates
    /// What stored pages name that is not stored (read once per page body).
    let subresources: PageSubresourceCheck
    /// The HTTP client fetching from origins (``OfflineReport/upstreamClient``); nil without a proxy.
    let upstreamClient: String?

    /// The declared requests' token values, shown as their placeholders in every URL, key and
    /// error these pages show.
    var secrets: SubstitutedSecrets { self.settings.secrets }
    /// What clients on other machines may have Larder fetch of the box's own addresses (config
    /// `lan.allowUpstream`): the URLs they add to precache are judged by it.
    var lanReach: UpstreamReach { self.settings.lanReach }
    /// The clock every page reads (the proxy's).
    var now: @Sendable () -> Date { self.settings.now }

    /// A complete response.
    typealias Response = OwnPageResponse

    /// Whether `path` is one of these pages.
    public func handles(path: String) -> Bool {
        path == Self.root || path == Self.root + ".json" || path.hasPrefix(Self.root + "/") || path == "/metrics"
    }

    /// Answers `request`.
    public func respond(to request: OwnPageRequest) async -> OwnPageResponse {
        do {
            return try await self.route(request, query: FormFields(request.query))
        } catch {
            return self.notice(
                500,
                heading: "Larder could not read its cache",
                paragraphs: ["\(error)", "The cache directory is \(self.store.directory)."]
            )
        }
    }

    private func route(_ request: OwnPageRequest, query: FormFields) async throws -> Response {
        let path = request.path
        let actionsPrefix = Self.root + "/actions/"
        if path.hasPrefix(actionsPrefix) {
            let actions = DevOfflineActions(pages: self)
            return try await actions.respond(name: String(path.dropFirst(actionsPrefix.count)), request: request)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = self.notice(
                405, heading: "Method not allowed",
                paragraphs: ["\(path) answers GET and HEAD; the controls are POST forms under \(actionsPrefix)."])
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        let gamesPrefix = Self.root + "/games/"
        switch path {
        case Self.root, Self.root + "/":
            return try await self.overview(query: query, json: false)
        case Self.root + ".json":
            return try await self.overview(query: query, json: true, origin: request.headers.first(name: "origin"))
        case Self.root + "/entries":
            return try await self.entries(query: query, json: false)
        case Self.root + "/entries.json":
            return try await self.entries(query: query, json: true)
        case "/metrics":
            let text = try await self.metrics.exposition(
                store: self.store, snapshot: self.proxy.snapshot(now: self.now()), offline: self.proxy.isOffline,
                maxSize: self.settings.maxSize)
            return Self.response(200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: text)
        case _ where path.hasPrefix(gamesPrefix) && path.count > gamesPrefix.count:
            var slug = String(path.dropFirst(gamesPrefix.count))
            let json = slug.hasSuffix(".json")
            if json { slug.removeLast(5) }
            return try await self.game(slug: slug, query: query, json: json)
        default:
            return self.notice(
                404, heading: "Not found",
                paragraphs: [
                    "Larder has no page at \(path).",
                    "Its pages are /dev/offline, /dev/offline/entries, /dev/offline/games/SLUG (each also as .json) and /metrics.",
                ])
        }
    }

    // MARK: - Pages

    /// The whole report: store, live state, the first page of entries, and the page of queued
    /// writes after the id `writesAfter` (nil: the first page).
    func overviewReport(now: Date, writesAfter: Int64? = nil) async throws -> OfflineReport {
        let snapshot = self.proxy.snapshot(now: now)
        var report = try await OfflineReport.read(
            from: self.store, maxSize: self.settings.maxSize, now: now, subresources: self.subresources)
        report.offline = self.proxy.isOffline
        report.startedAt = self.settings.startedAt
        report.upstreamClient = self.upstreamClient
        report.requests = RequestCounts(snapshot.answers)
        report.storeWriteFailures = snapshot.storeWriteProblem.map {
            StoreWriteFailuresReport(since: $0.since, failures: $0.failures, lastError: self.secrets.redacting($0.lastError))
        }
        report.upstream = self.hostReports(snapshot)
        report.connectivity = self.proxy.connectivity()
        report.answeredOffline = self.answeredOfflineReport(snapshot)
        report.keptNoStore = self.keptNoStoreReport(snapshot)
        report.add(offlineMisses: snapshot.offlineMisses.map(self.shown), capacity: self.settings.offlineMissCapacity)
        report.offlineMisses?.browserMisses = snapshot.browserMisses.map {
            $0.map { OfflineMissNote.annotatedBrowsers(self.shown($0)) }
        }
        report.recentRequests = snapshot.recentRequests
        report.pageJobs = self.settings.pageJobLimit.map { PageJobsReport($0, use: snapshot.pageJobUse ?? []) }
        report.writeQueue = try await WriteQueueReport.read(
            from: self.store, after: writesAfter, limits: self.settings.writeQueueLimits, replay: snapshot.writeReplay, now: now)
        let page = try await self.store.listEntries(matching: nil, sort: .recent, page: 1, pageSize: Self.pageSize)
        report.entries = EntryListReport(query: nil, sort: .recent, page: self.shown(page))
        return report
    }

    /// The routes **Answer offline** added, as reported (nil without them).
    /// `miss` as the pages show it: its URLs with secrets as their placeholders.
    func shown(_ miss: OfflineMiss) -> OfflineMiss {
        var shown = miss
        shown.url = self.secrets.redacting(miss.url)
        shown.endpoint = miss.endpoint.map(self.secrets.redacting)
        shown.referer = miss.referer.map(self.secrets.redacting)
        return shown
    }

    /// The sites whose `no-store` pages are kept, and those seen sending it, for the report (nil
    /// when the proxy keeps none).
    func keptNoStoreReport(_ snapshot: ProxySnapshot) -> KeptNoStoreReport? {
        guard let file = self.settings.keptNoStoreFile, let sites = snapshot.keptNoStore else { return nil }
        return KeptNoStoreReport(
            file: file, kept: sites.kept, chosenAt: sites.chosenAt,
            candidates: sites.candidates.map {
                .init(origin: $0.origin, count: $0.count, latestURL: self.secrets.redacting($0.latestURL), lastSeen: $0.lastSeen)
            }, problem: sites.problem)
    }

    /// The routes **Answer offline** added, as reported (nil without them).
    func answeredOfflineReport(_ snapshot: ProxySnapshot) -> AnsweredOfflineReport? {
        guard let file = self.settings.answeredOfflineFile, let entries = snapshot.answeredOffline else { return nil }
        return AnsweredOfflineReport(
            file: file, entries: entries.map { .init(method: $0.method, url: $0.url, chosenAt: $0.chosenAt) },
            problem: snapshot.answeredOfflineProblem)
    }

    private func overview(query: FormFields, json: Bool, origin: String? = nil) async throws -> Response {
        let now = self.now()
        let writesAfter = query["writesAfter"].flatMap { Int64($0) }
        let report = try await self.overviewReport(now: now, writesAfter: writesAfter)
        if json {
            var response = try Self.json(report)
            // Readable by the apps the user precached or allowed, so they can show their offline state.
            if let allowed = StatusCORS(configured: self.settings.statusOrigins).allowOrigin(for: origin) {
                response.headers.add(name: "Access-Control-Allow-Origin", value: allowed)
            }
            response.headers.add(name: "Vary", value: "Origin")
            return response
        }
        let views = DevOfflineViews(now: now)
        // Retry and drop buttons bring the user back to the page of writes they were on.
        let returnPath = writesAfter.map { "\(Self.root)?writesAfter=\($0)" } ?? Self.root
        let frame = self.frame(title: "Offline readiness", returnPath: returnPath, query: query, now: now)
        let html = self.templates.render(.overview, views.overview(report, frame: frame, recentCapacity: self.settings.recentCapacity))
        return Self.response(200, contentType: "text/html; charset=utf-8", body: html)
    }

    private func entries(query: FormFields, json: Bool) async throws -> Response {
        let now = self.now()
        let text = query["q"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        let search = text?.isEmpty == false ? text : nil
        let sort = query["sort"].flatMap(EntrySort.init(rawValue:)) ?? .recent
        let pageNumber = query["page"].flatMap { Int($0) }.map { max($0, 1) } ?? 1
        let page = try await self.store.listEntries(matching: search, sort: sort, page: pageNumber, pageSize: Self.pageSize)
        let list = EntryListReport(query: search, sort: sort, page: self.shown(page))
        if json {
            return try Self.json(list)
        }
        let totals = try await self.store.totals()
        let views = DevOfflineViews(now: now)
        let returnPath = DevOfflineViews.entriesHref(query: search ?? "", sort: sort, page: page.page)
        let frame = self.frame(title: search.map { "Entries matching \($0)" } ?? "Entries", returnPath: returnPath, query: query, now: now)
        let html = self.templates.render(.entries, views.entries(list, frame: frame, storeEntries: totals.entries))
        return Self.response(200, contentType: "text/html; charset=utf-8", body: html)
    }

    /// One game with every file checked against the store (a file recorded as cached whose entry is
    /// gone shows as missing, and the game is then not ready).
    func gameReport(slug: String, jobID: String?) async throws -> GameDetailReport? {
        guard let record = try await self.store.game(slug: slug) else { return nil }
        let records = try await self.store.gameFiles(slug: slug)
        let stored = try await self.store.storedStates(for: records.filter { $0.state == .cached }.map(\.key))
        let files = records.map { GameFileReport($0, stored: stored[$0.key]) }
        var game = GameReport(record, missing: files.filter { $0.state != "cached" }.prefix(OfflineReport.missingShown).map { $0 })
        let vanished = files.filter { $0.state == "missing" }.count
        if vanished > 0 {
            game.filesCached = max(0, record.filesCached - vanished)
            game.filesMissing = max(0, game.filesListed - game.filesCached)
            game.ready = false
            game.readiness = "\(game.filesCached) of \(game.filesListed)"
        }
        // Which misses are this game's depends on every game's root (the deepest wins).
        let games = try await self.store.games().map { GameReport($0, missing: []) }
        let attribution = OfflineMissAttribution(games: games)
        let pages = try await OfflineReport.pages(from: self.store, subresources: self.subresources)
        let allExtraURLs = try await OfflineReport.extraURLs(from: self.store, pages: pages)
        // Its rows say what the overview's say, fixes included.
        let snapshot = self.proxy.snapshot(now: self.now())
        let fixes = OfflineMissNote.Fixes(
            answeredOffline: self.answeredOfflineReport(snapshot), extraURLs: allExtraURLs, keptNoStore: self.keptNoStoreReport(snapshot))
        game.add(
            offlineMisses: snapshot.offlineMisses.filter { attribution.game(of: $0)?.slug == slug }
                .map { OfflineMissNote.annotated(self.shown($0), fixes: fixes, now: self.now()) })
        try await OfflineReport.checkPage(of: &game, record: record, in: self.store, subresources: self.subresources)
        let extraURLs = allExtraURLs.filter { $0.game == slug }
        return GameDetailReport(game: game, files: files, extraURLs: extraURLs, job: jobID.flatMap { self.proxy.precacheJob($0) })
    }

    private func game(slug: String, query: FormFields, json: Bool) async throws -> Response {
        let now = self.now()
        guard let detail = try await self.gameReport(slug: slug, jobID: query["job"]) else {
            if json {
                var response = try Self.json(["error": "no game \(slug) is recorded"])
                response.status = 404
                return response
            }
            return self.notice(
                404, heading: "No such game",
                paragraphs: ["No game with the slug \(slug) is recorded. The overview lists every game Larder knows."])
        }
        if json {
            return try Self.json(detail)
        }
        let views = DevOfflineViews(now: now)
        let frame = self.frame(title: detail.game.name, returnPath: detail.game.detail, query: query, now: now)
        let html = self.templates.render(.game, views.game(detail, frame: frame))
        return Self.response(200, contentType: "text/html; charset=utf-8", body: html)
    }

    // MARK: - Helpers

    /// `page` with the URL and key of each entry as these pages show them (``secrets``); a purge
    /// form posts the key back, and ``DevOfflineActions`` restores it.
    func shown(_ page: EntryPage) -> EntryPage {
        guard !self.secrets.isEmpty else { return page }
        var shown = page
        shown.entries = page.entries.map { entry in
            var entry = entry
            entry.url = self.secrets.redacting(entry.url)
            entry.key = CacheKey(storedRawValue: self.secrets.redacting(entry.key.rawValue))
            return entry
        }
        return shown
    }

    /// The hosts `snapshot` reports, their errors as these pages show them, failing ones first.
    func hostReports(_ snapshot: ProxySnapshot) -> [HostReport] {
        snapshot.hosts
            .map { host in
                var report = host
                report.lastError = report.lastError.map(self.secrets.redacting)
                return report
            }
            .sorted { ($0.state == "ok" ? 1 : 0, $0.origin) < ($1.state == "ok" ? 1 : 0, $1.origin) }
    }

    func frame(title: String, returnPath: String, query: FormFields, now: Date) -> DevOfflineViews.Frame {
        // Only a message Larder wrote: a link from elsewhere cannot put its own text here.
        let flash = query["flash"].flatMap { FlashSignature.isValid(query[FlashSignature.parameter], for: $0) ? $0 : nil }
        return DevOfflineViews.Frame(
            title: title, connectivity: self.proxy.connectivity(), returnPath: returnPath, flash: flash)
    }

    /// A page with a heading and paragraphs (errors, refusals).
    func notice(_ status: Int, heading: String, paragraphs: [String]) -> Response {
        let now = self.now()
        let frame = self.frame(title: heading, returnPath: Self.root, query: FormFields(nil), now: now)
        let html = self.templates.render(.notice, DevOfflineViews(now: now).notice(heading: heading, paragraphs: paragraphs, frame: frame))
        return Self.response(status, contentType: "text/html; charset=utf-8", body: html)
    }

    static func response(_ status: Int, contentType: String, body: String) -> Response {
        var headers: [HeaderField] = []
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if contentType.hasPrefix("text/html") {
            // The pages need nothing from anywhere else, and no script; forms post only to Larder.
            headers.add(
                name: "Content-Security-Policy",
                value:
                    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
            )
            headers.add(name: "Referrer-Policy", value: "same-origin")
        }
        return Response(status: status, headers: headers, body: body)
    }

    static func json<Value: Encodable>(_ value: Value) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        return Self.response(200, contentType: "application/json", body: String(decoding: data, as: UTF8.self))
    }
}

extension DevOfflinePages {
    /// The pages of the proxy `proxy` shows, over its `store`, with `/metrics` emitting `metrics`
    /// (the registry the proxy counts into), naming `upstreamClient` as the client fetching from
    /// origins.
    ///
    /// - Throws: only if a template is malformed (a bug the tests catch).
    public init(proxy: any ProxyIntrospection, store: Store, metrics: MetricsExposition, upstreamClient: String? = nil) throws {
        let settings = proxy.settings
        self.init(
            proxy: proxy,
            settings: settings,
            store: store,
            metrics: metrics,
            templates: try DevOfflineTemplates(),
            subresources: PageSubresourceCheck(queryFilter: settings.queryFilter),
            upstreamClient: upstreamClient
        )
    }
}
