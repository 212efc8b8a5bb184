import Foundation
import LarderHTTP
import LarderIntrospection

/// What happened to an endpoint the cache could not answer, in a user's words: why the site
/// could not answer, why nothing stored could, what the user did about it and whether it has
/// worked since (docs/SERVING.md, "Offline misses"). Written when the report is made, from what
/// the miss keeps (its reason, the `+` parts of its `Cache-Status` detail, the declared request
/// withheld from it) and the fixes the user applied.
struct OfflineMissNote {
    /// The fixes applied from /dev/offline, to find the one of a miss.
    struct Fixes {
        /// **Answer offline** entries: `METHOD URL-without-query` to when it was chosen (nil: before
        /// Larder kept the time).
        var answeredOffline: [String: Date?] = [:]
        /// **Add to precache** URLs, as endpoints (``OfflineMatch/endpoint(of:)``), to when.
        var addedToPrecache: [String: Date] = [:]
        /// **Keep this site's pages for offline use**: origins to when (nil: not known).
        var keptNoStore: [String: Date?] = [:]
        /// The sites seen sending `no-store` to the app, not chosen: their pages were not kept.
        var sendsNoStore: Set<String> = []

        init(answeredOffline: AnsweredOfflineReport?, extraURLs: [ExtraURLReport], keptNoStore: KeptNoStoreReport? = nil) {
            for origin in keptNoStore?.kept ?? [] {
                self.keptNoStore[origin] = .some(keptNoStore?.chosenAt?[origin])
            }
            self.sendsNoStore = Set(keptNoStore?.candidates.map(\.origin) ?? [])
            for entry in answeredOffline?.entries ?? [] {
                self.answeredOffline["\(entry.method) \(entry.url)"] = .some(entry.chosenAt)
            }
            for extra in extraURLs {
                guard let url = try? HTTPURL(parsing: extra.url) else { continue }
                self.addedToPrecache[OfflineMatch.ignoreCacheBusters.endpoint(of: url).absoluteString] = extra.addedAt
            }
        }

        init() {}

        /// The fix applied to `miss`, if any, and whether it missed after it.
        func fix(of miss: OfflineMiss) -> OfflineMissFix? {
            guard let url = try? HTTPURL(parsing: miss.url) else { return nil }
            var withoutQuery = url
            withoutQuery.query = nil
            withoutQuery.fragment = nil
            if let chosen = self.answeredOffline["\(miss.method) \(withoutQuery.absoluteString)"] {
                return OfflineMissFix(kind: .answerOffline, at: chosen, missedSince: chosen.map { miss.lastSeen > $0 } ?? true)
            }
            if ["GET", "HEAD"].contains(miss.method), let chosen = self.keptNoStore[url.origin] {
                return OfflineMissFix(kind: .keepNoStore, at: chosen, missedSince: chosen.map { miss.lastSeen > $0 } ?? true)
            }
            let endpoint = miss.endpoint ?? OfflineMatch.ignoreCacheBusters.endpoint(of: url).absoluteString
            if ["GET", "HEAD"].contains(miss.method), let added = self.addedToPrecache[endpoint] {
                return OfflineMissFix(kind: .addToPrecache, at: added, missedSince: miss.lastSeen > added)
            }
            return nil
        }
    }

    /// `miss` with its fix (from `fixes`) and its note, written at `now`.
    static func annotated(_ miss: OfflineMiss, fixes: Fixes, now: Date) -> OfflineMiss {
        var miss = miss
        // A report read back (`larder status` from a running server) keeps the fix it was given.
        miss.fix = fixes.fix(of: miss) ?? miss.fix
        let origin = (try? HTTPURL(parsing: miss.url))?.origin
        if miss.fix == nil, ["GET", "HEAD"].contains(miss.method), let origin, fixes.sendsNoStore.contains(origin),
            miss.causes?.contains(Self.notStoredNoStore) != true
        {
            // Why nothing stored answered: the site's pages were not kept (a cause as the detail's are).
            miss.causes = (miss.causes ?? []) + [Self.notStoredNoStore]
        }
        miss.note = self.text(miss, now: now)
        return miss
    }

    /// `miss`, a request the browser made on its own, with its note at `now`.
    static func annotatedBrowsers(_ miss: OfflineMiss) -> OfflineMiss {
        var miss = miss
        miss.note =
            self.what(miss.reason)
            + " The browser asked for this on its own (its update, safe-browsing, account or telemetry services): no page of the app did, so it is not among the app's misses and nothing needs doing."
        return miss
    }

    /// The short label of why the site could not answer, for the row's pill.
    static func label(_ reason: OfflineMissReason) -> String {
        switch reason {
        case .offline: "offline mode"
        case .upstreamUnreachable: "site unreachable"
        case .upstreamBackoff: "site not tried"
        case .networkTimeout: "no answer in time"
        }
    }

    /// Why the site could not answer, as a sentence.
    static func what(_ reason: OfflineMissReason) -> String {
        switch reason {
        case .offline: "Offline mode is on: Larder does not use the network."
        case .upstreamUnreachable: "The site could not be reached."
        case .upstreamBackoff: "Larder stopped trying the site for a while after it failed several times."
        case .networkTimeout: "The site did not answer in time."
        }
    }

    /// The cause of a miss whose site was seen sending `no-store` while the user has not chosen
    /// to keep its pages: nothing of it was stored.
    static let notStoredNoStore = "not-stored-no-store"

    /// The whole note of `miss` (with its ``OfflineMiss/fix`` set) at `now`.
    static func text(_ miss: OfflineMiss, now: Date) -> String {
        let causes = Set(miss.causes ?? [])
        var sentences = [self.what(miss.reason)]
        if miss.upgrade != nil || causes.contains("websocket") {
            sentences.append(
                "This is a live connection (a WebSocket): nothing stored can stand in for one, so it cannot work offline; the app has to reconnect once the site is back."
            )
            return sentences.joined(separator: " ")
        }
        if causes.contains("health-check") {
            sentences.append(
                "This is a health check: Larder never answers it from the cache while the site cannot answer, so the app hears that its server is down. Nothing to fix."
            )
            return sentences.joined(separator: " ")
        }
        if causes.contains("declared-withheld") {
            let name = miss.declaredRequest.map { "\"\($0)\"" } ?? "in the config file"
            let page = miss.referer.flatMap { try? HTTPURL(parsing: $0) }?.origin
            sentences.append(
                "The declared request \(name) has a stored answer for this request, but Larder withheld it: that answer is the user's, and this page\(page.map { " (\($0))" } ?? "") is not among the pageOrigins listed for it. To answer it offline, add \(page.map { "\"\($0)\"" } ?? "the page's origin") to that request's pageOrigins in the config file."
            )
        } else if causes.contains("body-not-near") {
            sentences.append(
                "Larder keeps answers for this URL, but none for a request like this one: its body differs in more than times, counters or a form boundary."
            )
        } else if causes.contains(Self.notStoredNoStore) {
            sentences.append(
                "This site marks its pages no-store (asks that they never be kept), so Larder kept none. Keep this site's pages for offline use (under Pages marked no-store) keeps them for you alone, to show only while the site cannot answer, from your next online visit."
            )
        } else if miss.fix == nil, miss.methodNotStored == true {
            sentences.append(
                "\(miss.method) requests are not stored on defaults, so Larder had no copy to answer with. If this request only reads, Answer offline (or a config route with cacheMethods) keeps its answers from the next online visit."
            )
        } else if miss.fix == nil {
            sentences.append("Nothing stored could answer it.")
        }
        if let fix = miss.fix {
            sentences.append(self.fixed(fix, miss: miss, now: now))
        }
        return sentences.joined(separator: " ")
    }

    /// What the user did, when, and whether it has worked since.
    static func fixed(_ fix: OfflineMissFix, miss: OfflineMiss, now: Date) -> String {
        let when = fix.at.map { " \(HumanFormat.relative($0, now: now)) (\(HumanFormat.exact($0)))" } ?? ""
        let latest = "\(HumanFormat.relative(miss.lastSeen, now: now)) (\(HumanFormat.exact(miss.lastSeen)))"
        switch fix.kind {
        case .answerOffline:
            guard fix.missedSince else {
                return "Answer offline was chosen\(when); it has not missed since."
            }
            if fix.at == nil {
                return "Answer offline was chosen; it missed \(latest)."
            }
            return
                "Answer offline was chosen\(when), but it has missed since (latest \(latest)): an answer is kept for each body once the site answers it, so use the page online once more."
        case .keepNoStore:
            guard fix.missedSince else {
                return "Keep this site's pages for offline use was chosen\(when); it has not missed since."
            }
            return
                "Keep this site's pages for offline use was chosen\(when), but it has missed since (latest \(latest)): a page is kept once it is visited online after the choice, so visit it online once more."
        case .addToPrecache:
            guard fix.missedSince else {
                return "It was added to precache\(when); it has not missed since."
            }
            return
                "It was added to precache\(when), but it has missed since (latest \(latest)): see whether the precache run stored it (Extra URLs)."
        }
    }
}
