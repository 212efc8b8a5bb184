import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore
import LarderUpstream

/// The controls of /dev/offline: POST forms (`application/x-www-form-urlencoded`) to
/// `/dev/offline/actions/NAME`, accepted only from Larder's own pages (``ProxyIntrospection/controlRefusal(for:)``), each
/// answered with a 303 redirect back to the page it came from (post/redirect/get), carrying a
/// one-line message in the `flash` query parameter, signed so that only Larder's own messages
/// are shown (``FlashSignature``).
///
/// - `purge-entry` (`key` or `url`): removes one entry; a game listing it is no longer ready.
/// - `purge-game` (`game`: a slug): removes the game's entries that nothing else lists; it shows as
///   failed (`purged`) until precached again.
/// - `precache-game` (`game`): queues a precache job for the game's manifest, like
///   `POST /dev/offline/precache`; redirects to the game's page with the job shown.
/// - `offline` (`offline`: `on` or `off`): switches offline mode.
/// - `refresh-series` (`series`): queues a precache job for a dated series (`SeriesViews.swift`).
/// - `remove-series` (`series`): forgets a dated series and the entries of its days nothing else lists.
/// - `clear-runtime`: removes every runtime entry; precached ones stay.
/// - `add-to-precache` (`url`, optional `game`: a slug): adds an offline miss's URL to the extra URLs
///   (``ExtraURLRecord``) of the game, or, without one, to those precached with every run, and
///   queues a precache job for it at once (with the game, so the game's precache time moves past
///   its misses).
/// - `remove-extra-url` (`url`): removes an extra URL; what it cached stays until purged.
/// - `refresh-request` (`name`): runs the declared request of that name now.
/// - `retry-write` (`id`): delivers a queued write now (a dead letter goes back to pending first,
///   keeping its place in its origin's order).
/// - `drop-write` (`id`): removes a queued write; it is never delivered.
/// - `keep-no-store` (`origin`): keeps the site's pages marked `no-store`, for the person who saw
///   them, for use only while the site cannot answer (``KeptNoStore``).
/// - `stop-keeping-no-store` (`origin`): stops, and removes the copies kept so far.
///
/// `retry-write` and `drop-write` act on another machine's request only for the write's owner.
///
/// Every form may name a `return` path under /dev/offline to come back to.
struct DevOfflineActions {
    let pages: DevOfflinePages

    /// The longest flash message shown.
    static let maximumFlashLength = 300

    /// Runs the control `name` that `request` posted.
    func respond(name: String, request: OwnPageRequest) async throws -> DevOfflinePages.Response {
        guard request.method == "POST" else {
            var response = self.pages.notice(
                405,
                heading: "Use the buttons on /dev/offline",
                paragraphs: ["\(DevOfflinePages.root)/actions/\(name) is a control: it answers POST forms from Larder's own pages only."]
            )
            response.headers.add(name: "Allow", value: "POST")
            return response
        }
        if let reason = self.pages.proxy.controlRefusal(for: request) {
            return self.pages.notice(403, heading: "Refused: not from Larder's own page", paragraphs: [reason])
        }
        let contentType = request.headers.first(name: "content-type")?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return self.pages.notice(
                415,
                heading: "Unsupported form encoding",
                paragraphs: [
                    "The controls take application/x-www-form-urlencoded forms; this request sent \(contentType.isEmpty ? "no Content-Type" : contentType)."
                ]
            )
        }
        let fields = FormFields(String(decoding: request.body, as: UTF8.self))
        let back = Self.returnPath(fields["return"])
        switch name {
        case "purge-entry":
            return try await self.purgeEntry(fields, back: back)
        case "purge-game":
            return try await self.purgeGame(fields, back: back)
        case "precache-game":
            return try await self.precacheGame(
                fields, origin: request.headers.first(name: "origin"), reach: self.reach(request), back: back)
        case "add-to-precache":
            return try await self.addToPrecache(
                fields, origin: request.headers.first(name: "origin"), clientIsLoopback: request.clientIsLoopback, back: back)
        case "refresh-series":
            return try await self.refreshSeries(
                fields, origin: request.headers.first(name: "origin"), reach: self.reach(request), back: back)
        case "remove-series":
            return try await self.removeSeries(fields, back: back)
        case "remove-extra-url":
            let url = fields["url"] ?? ""
            let removed = try await self.pages.store.removeExtraURL(url)
            return Self.redirect(
                back,
                flash: removed
                    ? "Removed \(url) from the extra URLs; what it cached stays until purged." : "\(url) is not an extra URL.")
        case "refresh-request":
            let name = fields["name"] ?? ""
            guard self.pages.proxy.refreshDeclaredRequest(name) else {
                return Self.redirect(back, flash: "No declared request is named \(name).")
            }
            return Self.redirect(back, flash: "Refreshing \(name) now; reload in a moment to see how it went.")
        case "retry-write", "drop-write":
            return try await self.manageWrite(name, fields, request: request, back: back)
        case "answer-offline", "remove-answer-offline":
            guard let file = self.pages.settings.answeredOfflineFile,
                let entry = AnsweredOffline.Entry(url: fields["url"] ?? "", method: fields["method"] ?? "")
            else {
                return Self.redirect(back, flash: "Only a POST or QUERY to an http(s) URL can be answered offline.")
            }
            do {
                if name == "answer-offline" {
                    var chosen = entry
                    // Kept so /dev/offline can say whether the misses stopped since.
                    chosen.chosenAt = self.pages.now()
                    let added = try self.pages.proxy.answerOffline(chosen)
                    return Self.redirect(
                        back,
                        flash: added
                            ? "\(entry.method) \(entry.url) will be answered offline: its answers are kept by their bodies from the next online visit (\(file))."
                            : "\(entry.method) \(entry.url) is already answered offline.")
                }
                let removed = try self.pages.proxy.stopAnsweringOffline(entry)
                return Self.redirect(
                    back,
                    flash: removed
                        ? "\(entry.method) \(entry.url) is no longer answered offline; what was stored stays until purged."
                        : "\(entry.method) \(entry.url) was not answered offline.")
            } catch {
                return Self.redirect(back, flash: "Not changed: \(error)")
            }
        case "keep-no-store", "stop-keeping-no-store":
            return try await self.keepNoStore(name, fields, back: back)
        case "offline":
            return self.toggleOffline(fields, back: back)
        case "clear-runtime":
            let removed = try await self.pages.store.removeRuntimeEntries()
            return Self.redirect(
                back, flash: "Removed \(HumanFormat.count(removed)) runtime \(removed == 1 ? "entry" : "entries"); precached entries stay.")
        default:
            return self.pages.notice(404, heading: "No such control", paragraphs: ["Larder has no control named \(name)."])
        }
    }

    /// `retry-write` or `drop-write`: only from Larder's own machine or by the write's owner
    /// (``AnswerOwner/mayManageQueuedWrite(ownedBy:client:request:)``), so that on a shared box one
    /// pupil can neither drop nor resend another's save.
    private func manageWrite(_ name: String, _ fields: FormFields, request: OwnPageRequest, back: String) async throws
        -> DevOfflinePages.Response
    {
        let store = self.pages.store
        guard let id = fields["id"].flatMap({ Int64($0) }), let write = try await store.queuedWrite(id: id) else {
            return Self.redirect(back, flash: "No queued write has the id \(fields["id"] ?? "").")
        }
        guard AnswerOwner.mayManageQueuedWrite(ownedBy: write.owner, client: request.client, request: request.headers) else {
            return self.pages.notice(
                403, heading: "Refused: not your queued write",
                paragraphs: [
                    "Queued write \(id) was queued by another client or login; only it, or the box's own user (on Larder's machine), may retry or drop it."
                ])
        }
        if name == "drop-write" {
            guard try await store.dropWrite(id: id) else {
                return Self.redirect(back, flash: "No queued write has the id \(id).")
            }
            return Self.redirect(back, flash: "Dropped queued write \(id); it will not be delivered.")
        }
        guard try await store.retryWrite(id: id) else {
            return Self.redirect(back, flash: "No queued write has the id \(id).")
        }
        self.pages.proxy.retryWrite(id: id)
        return Self.redirect(
            back,
            flash:
                "Queued write \(id) is pending, its origin's wait ended: it goes after the writes queued before it. Reload to see how it went."
        )
    }

    private func purgeEntry(_ fields: FormFields, back: String) async throws -> DevOfflinePages.Response {
        guard let shown = fields["key"] ?? fields["url"], !shown.isEmpty else {
            return self.pages.notice(400, heading: "Which entry?", paragraphs: ["The form names no entry (a key or url field)."])
        }
        // The entry list shows a declared request's token as its placeholder; what is said back shows it so too.
        let text = self.pages.secrets.restoring(shown)
        var key: CacheKey
        do {
            key = try CacheKey(url: text, filter: self.pages.settings.queryFilter)
        } catch {
            return self.pages.notice(
                400, heading: "Not a URL", paragraphs: ["\(text) is not a URL Larder could have cached: \(error)"])
        }
        // A keyed request's entry (`URL#POST=graphql:...`, docs/SERVING.md) is named by its whole
        // key: as a URL, the fragment would be dropped and the URL's own entry purged instead.
        let stored = CacheKey(storedRawValue: text)
        if stored.isKeyed, text.hasPrefix(key.rawValue + "#") {
            key = stored
        }
        let result = try await self.pages.store.purgeEntry(key)
        guard result.removed else {
            return Self.redirect(back, flash: "\(shown) was not cached.")
        }
        var message = "Purged \(self.pages.secrets.redacting(key.rawValue))."
        if !result.gamesAffected.isEmpty {
            message += " No longer ready offline: \(result.gamesAffected.joined(separator: ", "))."
        }
        return Self.redirect(back, flash: message)
    }

    private func purgeGame(_ fields: FormFields, back: String) async throws -> DevOfflinePages.Response {
        let slug = fields["game"] ?? ""
        guard let record = try await self.pages.store.game(slug: slug), let removed = try await self.pages.store.purgeGame(slug: slug)
        else {
            return Self.redirect(back, flash: "No game \(slug) is recorded.")
        }
        let name = record.displayName ?? record.slug
        return Self.redirect(
            back,
            flash:
                "Purged \(name): removed \(HumanFormat.count(removed)) \(removed == 1 ? "entry" : "entries"). It is not ready offline until precached again."
        )
    }

    /// What a job a control starts may reach for `request`'s client: a client on another machine
    /// never has it fetch the box's own loopback (``UpstreamReach``), extra URLs included.
    private func reach(_ request: OwnPageRequest) -> UpstreamReach? {
        self.pages.lanReach.forClient(onLoopback: request.clientIsLoopback)
    }

    private func precacheGame(_ fields: FormFields, origin: String?, reach: UpstreamReach?, back: String) async throws
        -> DevOfflinePages.Response
    {
        let slug = fields["game"] ?? ""
        guard let record = try await self.pages.store.game(slug: slug) else {
            return Self.redirect(back, flash: "No game \(slug) is recorded.")
        }
        // The manifest URL, not the root: a Workbox or Vite manifest keeps its format that way; and
        // the game's page, which its readiness includes.
        let line = record.pageURL.map { "\(record.manifestURL) page \($0)" } ?? record.manifestURL
        let id: String
        switch try await self.pages.proxy.submitPrecache(lines: [line], source: "/dev/offline", requestedBy: origin, reach: reach) {
        case .nothingToPrecache(let problems):
            return Self.redirect(back, flash: "Cannot precache \(record.manifestURL): \(problems.joined(separator: "; "))")
        case .refused(let url):
            return Self.redirect(back, flash: "Cannot precache \(url).")
        case .queued(let queued, _):
            id = queued
        }
        let name = record.displayName ?? record.slug
        let target = "\(DevOfflinePages.root)/games/\(record.slug)?" + FormFields.encode([("job", id)])
        return Self.redirect(target, flash: "Precaching \(name) again (job \(id)). Reload to follow it.")
    }

    private func addToPrecache(
        _ fields: FormFields, origin: String?, clientIsLoopback: Bool, back: String
    ) async throws -> DevOfflinePages.Response {
        guard let text = fields["url"], !text.isEmpty else {
            return self.pages.notice(400, heading: "Which URL?", paragraphs: ["The form names no URL to precache (a url field)."])
        }
        var url: HTTPURL
        do {
            url = try HTTPURL(parsing: text)
        } catch {
            return self.pages.notice(400, heading: "Not a URL", paragraphs: ["\(text) cannot be precached: \(error)"])
        }
        url.fragment = nil
        if !clientIsLoopback, await self.pages.lanReach.resolvesToForbiddenAddress(host: url.host, port: url.effectivePort) {
            // Every later run would fetch it for everyone (docs/SERVING.md, "A shared box").
            return self.pages.notice(
                403, heading: "Refused: the box's own address",
                paragraphs: [UpstreamReach.refusal(host: url.host, port: url.effectivePort)])
        }
        var game: GameRecord?
        if let slug = fields["game"], !slug.isEmpty {
            guard let record = try await self.pages.store.game(slug: slug) else {
                return Self.redirect(back, flash: "No game \(slug) is recorded.")
            }
            game = record
        }
        let added = url.absoluteString
        try await self.pages.store.addExtraURL(ExtraURLRecord(url: added, gameSlug: game?.slug, addedAt: self.pages.now()))
        self.pages.proxy.forgetOfflineMiss(url: added)
        // The game's manifest comes along: its extra URLs are fetched with it, and its precache
        // time then follows the misses it answers.
        let submission = try await self.pages.proxy.submitPrecache(
            lines: game.map { [$0.manifestURL] } ?? [], source: "/dev/offline", requestedBy: origin,
            reach: self.pages.lanReach.forClient(onLoopback: clientIsLoopback))
        guard case .queued(let id, _) = submission else {
            return Self.redirect(back, flash: "Added \(added) to precache, but no precache job could start: \(submission).")
        }
        guard let game else {
            return Self.redirect(back, flash: "Added \(added) to the URLs precached with every run; precaching it now (job \(id)).")
        }
        let name = game.displayName ?? game.slug
        let target = "\(DevOfflinePages.root)/games/\(game.slug)?" + FormFields.encode([("job", id)])
        return Self.redirect(target, flash: "Added \(added) to \(name); precaching \(name) with it now (job \(id)). Reload to follow it.")
    }

    private func toggleOffline(_ fields: FormFields, back: String) -> DevOfflinePages.Response {
        let wanted: Bool
        switch fields["offline"]?.lowercased() {
        case "on", "true", "1": wanted = true
        case "off", "false", "0": wanted = false
        default: wanted = !self.pages.proxy.isOffline
        }
        self.pages.proxy.setOffline(wanted)
        let message =
            wanted
            ? "Offline mode is on: Larder answers from its cache only and never contacts the network."
            : "Offline mode is off: Larder uses the network again."
        return Self.redirect(back, flash: message)
    }

    /// `path` when it is a page of /dev/offline (never another site, nor a scheme-relative `//host`),
    /// else `/dev/offline`.
    static func returnPath(_ path: String?) -> String {
        guard let path,
            path == DevOfflinePages.root || path.hasPrefix(DevOfflinePages.root + "/") || path.hasPrefix(DevOfflinePages.root + "?"),
            !path.contains("//"), !path.contains("\\"),
            path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            return DevOfflinePages.root
        }
        return path
    }

    /// A 303 to `path` with `flash` and its signature (``FlashSignature``) added to its query
    /// (replacing earlier ones).
    static func redirect(_ path: String, flash: String) -> DevOfflinePages.Response {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var pairs = FormFields(parts.count > 1 ? String(parts[1]) : nil).pairs
            .filter { $0.name != "flash" && $0.name != FlashSignature.parameter }
            .map { ($0.name, $0.value) }
        let text = String(flash.prefix(Self.maximumFlashLength))
        pairs.append(("flash", text))
        pairs.append((FlashSignature.parameter, FlashSignature.sign(text)))
        var headers: [HeaderField] = []
        headers.add(name: "Location", value: "\(parts[0])?\(FormFields.encode(pairs))")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        return DevOfflinePages.Response(status: 303, headers: headers, body: "See \(parts[0])\n")
    }
}
