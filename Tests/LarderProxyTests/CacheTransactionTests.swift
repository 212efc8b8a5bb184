import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// The cache transaction's decisions, event by event, without sockets or a store.
@Suite("Cache transaction")
struct CacheTransactionTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)
    static let url = try! HTTPURL(parsing: "http://site.example/a.js")
    static let page = try! HTTPURL(parsing: "http://site.example/index.html")

    /// A stored response, `age` seconds old when `now`.
    static func entry(
        _ headers: [(String, String)] = [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")],
        age: TimeInterval = 0,
        kind: EntryKind = .runtime,
        url: HTTPURL = url,
        status: Int = 200
    ) -> CacheTransaction.Candidate {
        let time = now.addingTimeInterval(-age)
        let fields = headers.map { HeaderField(name: $0.0, value: $0.1) }
        let entry = CachedEntry(
            key: CacheKey(url: url),
            url: url.absoluteString,
            status: status,
            headers: fields,
            varyRequestHeaders: [],
            kind: kind,
            bodyHash: "h-\(headers.count)-\(age)",
            bodySize: 10,
            bodyPath: "/nonexistent",
            requestTime: time,
            responseTime: time,
            storedAt: time
        )
        let freshness = ResponseFreshness(status: status, header: { fields[$0] }, requestTime: time, responseTime: time)
        return CacheTransaction.Candidate(entry: entry, freshness: freshness)
    }

    static func transaction(
        _ candidate: CacheTransaction.Candidate? = nil,
        method: HTTPMethod = .GET,
        headers: [(String, String)] = [],
        strategy: CachingStrategy? = nil,
        url: HTTPURL = url,
        offline: Bool = false,
        backingOff: Bool = false,
        missReason: CacheStatus.ForwardReason = .uriMiss,
        standIn: CacheTransaction.StandIn? = nil,
        offlineRule: OfflineRule = .relaxed,
        keyed: CacheTransaction.Keyed? = nil,
        partial: CacheTransaction.Candidate? = nil,
        seeksStandInBody: Bool = false
    ) -> CacheTransaction {
        CacheTransaction(
            CacheTransaction.Start(
                request: HTTPRequestHead(version: .http1_1, method: method, uri: url.absoluteString, headers: HTTPHeaders(headers)),
                owner: AnswerOwner(client: .local, request: headers.map { HeaderField(name: $0.0, value: $0.1) }, url: url),
                url: url,
                key: CacheKey(url: url),
                lookup: CacheTransaction.Lookup(candidate: candidate, missReason: missReason, standIn: standIn),
                routeStrategy: strategy,
                routeMaxAge: nil,
                networkTimeout: .seconds(3),
                offlineRule: offlineRule,
                offline: offline,
                backingOff: backingOff,
                now: now,
                keyed: keyed,
                partial: partial,
                seeksStandInBody: seeksStandInBody
            )
        )
    }

    /// An action, reduced to what the tables compare.
    enum Step: Equatable {
        case stored(detail: String?, cacheStatus: String?, refresh: Bool, disconnected: Bool = false)
        case page(CacheTransaction.Page, cacheStatus: String)
        case mayProbe
        case join
        /// Join a fetch in flight, but fetch alone rather than lead one.
        case followOnly
        case fetch(conditional: Bool, timeout: Duration?)
        case merge
        case relay(forward: CacheStatus.ForwardReason, stores: Bool, notStored: String?)
        case seekStandIn

        init(_ action: CacheTransaction.Action) {
            switch action {
            case .answerStored(_, let detail, let cacheStatus, let refresh, let disconnected):
                self = .stored(detail: detail, cacheStatus: cacheStatus?.description, refresh: refresh, disconnected: disconnected)
            case .answerPage(let page, let cacheStatus):
                self = .page(page, cacheStatus: cacheStatus.description)
            case .mayProbe:
                self = .mayProbe
            case .joinInFlight(let mayLead):
                self = mayLead ? .join : .followOnly
            case .fetch(let plan):
                self = .fetch(conditional: plan.validating != nil, timeout: plan.headTimeout)
            case .mergeNotModified:
                self = .merge
            case .relay(let relay):
                self = .relay(forward: relay.forwardReason, stores: relay.storeAs != nil, notStored: relay.notStoredReason)
            case .seekStandInBody:
                self = .seekStandIn
            }
        }
    }

    private static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    @Test("what the first step is, by stored copy, strategy and request")
    func firstStep() {
        let fresh = Self.entry()
        let stale = Self.entry(age: 120)
        let cases: [(String, CacheTransaction, Step)] = [
            ("fresh copy", Self.transaction(fresh), .stored(detail: nil, cacheStatus: nil, refresh: false)),
            ("miss: join the fetch in flight", Self.transaction(), .join),
            ("HEAD miss: fetched alone", Self.transaction(method: .HEAD), .fetch(conditional: false, timeout: nil)),
            ("range miss: fetched alone", Self.transaction(headers: [("Range", "bytes=0-1")]), .fetch(conditional: false, timeout: nil)),
            ("stale copy: validated, the copy after 3 s", Self.transaction(stale), .fetch(conditional: true, timeout: .seconds(3))),
            (
                "no-cache request: validated, the copy after 3 s", Self.transaction(fresh, headers: [("Cache-Control", "no-cache")]),
                .fetch(conditional: true, timeout: .seconds(3))
            ),
            (
                "stale must-revalidate copy: validated, the copy after 3 s (relaxed offline rule)",
                Self.transaction(Self.entry([("Cache-Control", "max-age=60, must-revalidate")], age: 120)),
                .fetch(conditional: true, timeout: .seconds(3))
            ),
            (
                "stale must-revalidate copy on a strict route: validated, as long as it takes",
                Self.transaction(Self.entry([("Cache-Control", "max-age=60, must-revalidate")], age: 120), offlineRule: .strict),
                .fetch(conditional: true, timeout: nil)
            ),
            (
                "only-if-cached miss", Self.transaction(headers: [("Cache-Control", "only-if-cached")]),
                .page(.notCached(detail: "only-if-cached"), cacheStatus: "larder; fwd=uri-miss; detail=only-if-cached")
            ),
            (
                "precached asset, no route: cache-first whatever its age",
                Self.transaction(Self.entry(age: 999_999, kind: .precached)), .stored(detail: "precached", cacheStatus: nil, refresh: false)
            ),
            (
                "precached page: network-first with a timeout",
                Self.transaction(Self.entry(kind: .precached, url: Self.page), url: Self.page),
                .fetch(conditional: true, timeout: .seconds(3))
            ),
            (
                "stale-while-revalidate route", Self.transaction(stale, strategy: .staleWhileRevalidate),
                .stored(detail: "stale-while-revalidate", cacheStatus: nil, refresh: true)
            ),
            (
                "stale-while-revalidate directive within its window",
                Self.transaction(Self.entry([("Cache-Control", "max-age=60, stale-while-revalidate=100")], age: 100)),
                .stored(detail: "stale-while-revalidate", cacheStatus: nil, refresh: true)
            ),
            (
                "network-only with a copy: unconditional, alone", Self.transaction(fresh, strategy: .networkOnly),
                .fetch(conditional: false, timeout: nil)
            ),
            (
                "cache-only miss", Self.transaction(strategy: .cacheOnly),
                .page(.notCached(detail: "cache-only"), cacheStatus: "larder; fwd=uri-miss; detail=cache-only")
            ),
            (
                "offline with a copy", Self.transaction(stale, offline: true),
                .stored(detail: "offline", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "offline miss", Self.transaction(offline: true),
                .page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=uri-miss; detail=offline")
            ),
            (
                "offline, vary miss", Self.transaction(offline: true, missReason: .varyMiss),
                .page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=vary-miss; detail=offline")
            ),
            (
                "offline with a stale no-cache copy: served, saying what was relaxed",
                Self.transaction(Self.entry([("Cache-Control", "no-cache")], age: 5), offline: true),
                .stored(detail: "offline+relaxed-no-cache", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "offline with a stale no-cache copy on a strict route",
                Self.transaction(Self.entry([("Cache-Control", "no-cache")], age: 5), offline: true, offlineRule: .strict),
                .page(
                    .disconnected(status: 504, reason: nil, unusable: Self.strictUnusable("no-cache")),
                    cacheStatus: "larder; fwd=stale; detail=offline"
                )
            ),
            ("host backing off, stale copy: asks whether it may probe", Self.transaction(stale, backingOff: true), .mayProbe),
            ("host backing off, miss: asks whether it may probe", Self.transaction(backingOff: true), .mayProbe),
        ]
        for (name, transaction, expected) in cases {
            var transaction = transaction
            #expect(Step(transaction.begin()) == expected, "\(name)")
        }
    }

    @Test("backing off: a request refused as the probe is answered as the back-off says; one admitted fetches as without it")
    func backOffProbe() {
        let stale = Self.entry(age: 120)
        let cases: [(String, CacheTransaction, Bool, Step)] = [
            (
                "stale copy, not the probe", Self.transaction(stale, backingOff: true), false,
                .stored(detail: "upstream-backoff", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "miss, not the probe", Self.transaction(backingOff: true), false,
                .page(
                    .disconnected(status: 502, reason: "http://site.example failed repeatedly and is backing off.", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-backoff"
                )
            ),
            (
                "stale copy, the probe: validated, the copy after 3 s", Self.transaction(stale, backingOff: true), true,
                .fetch(conditional: true, timeout: .seconds(3))
            ),
            ("miss, the probe: joins the fetch in flight", Self.transaction(backingOff: true), true, .join),
        ]
        for (name, transaction, admitted, expected) in cases {
            var transaction = transaction
            #expect(Step(transaction.begin()) == .mayProbe, "\(name)")
            #expect(Step(transaction.probeAnswered(admitted: admitted, now: Self.now)) == expected, "\(name)")
        }
    }

    @Test("a miss: the leader fetches and stores, a follower serves what the leader stored or fetches alone")
    func coalescing() {
        var leader = Self.transaction()
        #expect(Step(leader.begin()) == .join)
        #expect(Step(leader.lead()) == .fetch(conditional: false, timeout: nil))
        let answer = leader.upstreamAnswered(
            status: 200, headers: Self.fields([("Cache-Control", "max-age=60")]), requestTime: Self.now, now: Self.now)
        #expect(Step(answer) == .relay(forward: .uriMiss, stores: true, notStored: nil))
        #expect(leader.isDone)

        var follower = Self.transaction()
        _ = follower.begin()
        #expect(
            Step(follower.followerWoke(Self.entry(), joinedAfterAnswerBegan: false, now: Self.now))
                == .stored(detail: "coalesced", cacheStatus: nil, refresh: false))
        // What the leader stored cannot be read: fetch alone, not join again.
        #expect(Step(follower.storedAnswerFailed()) == .fetch(conditional: false, timeout: nil))

        var late = Self.transaction()
        _ = late.begin()
        #expect(Step(late.followerWoke(nil, joinedAfterAnswerBegan: false, now: Self.now)) == .fetch(conditional: false, timeout: nil))

        // Joined before the answer began: what the leader stored answers it whatever its freshness
        // (no-cache, an ETag alone) and whatever it asked (a reload's no-cache, max-age=0): the
        // answer was fetched after the request was made. One download per burst.
        for asked in [[], [("Cache-Control", "no-cache")], [("Cache-Control", "max-age=0")], [("Pragma", "no-cache")]] {
            for stored in [[("Cache-Control", "no-cache")], [("ETag", #""v1""#)], [("Cache-Control", "max-age=600")]] {
                var before = Self.transaction(headers: asked)
                _ = before.begin()
                #expect(
                    Step(before.followerWoke(Self.entry(stored), joinedAfterAnswerBegan: false, now: Self.now))
                        == .stored(detail: "coalesced", cacheStatus: nil, refresh: false), "\(asked) \(stored)")
            }
        }
        // Joined once the answer had begun: decided as any request against a stored copy. A copy
        // that may serve it does; else it revalidates with the copy's validators, not a second download.
        let afterCases: [(String, [(String, String)], [(String, String)], Step)] = [
            (
                "fresh, plain request", [], [("Cache-Control", "max-age=600")],
                .stored(detail: "coalesced", cacheStatus: nil, refresh: false)
            ),
            ("an ETag alone: stale at once", [], [("ETag", #""v1""#)], .fetch(conditional: true, timeout: nil)),
            ("no-cache stored", [], [("Cache-Control", "no-cache"), ("ETag", #""v1""#)], .fetch(conditional: true, timeout: nil)),
            (
                "fresh, but a reload", [("Cache-Control", "no-cache")], [("Cache-Control", "max-age=600"), ("ETag", #""v1""#)],
                .fetch(conditional: true, timeout: nil)
            ),
            (
                "fresh, but older than max-age=0", [("Cache-Control", "max-age=0")], [("Cache-Control", "max-age=600"), ("Age", "5")],
                .fetch(conditional: true, timeout: nil)
            ),
            (
                "stale, but max-stale", [("Cache-Control", "max-stale")], [("Cache-Control", "max-age=0")],
                .stored(detail: "coalesced", cacheStatus: nil, refresh: false)
            ),
        ]
        for (name, asked, stored, expected) in afterCases {
            var after = Self.transaction(headers: asked)
            _ = after.begin()
            #expect(Step(after.followerWoke(Self.entry(stored), joinedAfterAnswerBegan: true, now: Self.now)) == expected, "\(name)")
        }
        // A route's strategy serves what is stored whatever its freshness.
        var cacheFirst = Self.transaction(strategy: .cacheFirst)
        #expect(Step(cacheFirst.begin()) == .join)
        #expect(
            Step(cacheFirst.followerWoke(Self.entry([("Cache-Control", "no-cache")]), joinedAfterAnswerBegan: true, now: Self.now))
                == .stored(detail: "coalesced", cacheStatus: nil, refresh: false))
        // A request with its own preconditions follows a fetch in flight but never leads one: the
        // origin's 304 to it would store nothing for those following it.
        for precondition in ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"] {
            var conditional = Self.transaction(headers: [(precondition, "x")])
            #expect(Step(conditional.begin()) == .followOnly, "\(precondition)")
        }
    }

    @Test("upstream's answer: relayed and stored by storability, HEAD and preconditions not stored")
    func relayAndStore() {
        func relay(_ transaction: CacheTransaction, status: Int = 200, headers: [(String, String)]) -> Step {
            var transaction = transaction
            var action = transaction.begin()
            if case .joinInFlight = action { action = transaction.lead() }
            return Step(transaction.upstreamAnswered(status: status, headers: Self.fields(headers), requestTime: Self.now, now: Self.now))
        }
        #expect(
            relay(Self.transaction(), headers: [("Cache-Control", "no-store")])
                == .relay(forward: .uriMiss, stores: false, notStored: "no-store"))
        #expect(relay(Self.transaction(method: .HEAD), headers: []) == .relay(forward: .uriMiss, stores: false, notStored: "head"))
        #expect(
            relay(Self.transaction(headers: [("If-Match", "\"x\"")]), status: 412, headers: [])
                == .relay(forward: .uriMiss, stores: false, notStored: "precondition")
        )
        #expect(
            relay(Self.transaction(strategy: .networkOnly), headers: [])
                == .relay(forward: .uriMiss, stores: false, notStored: "network-only"))
        #expect(relay(Self.transaction(missReason: .varyMiss), headers: []) == .relay(forward: .varyMiss, stores: true, notStored: nil))
        #expect(relay(Self.transaction(Self.entry(age: 120)), headers: []) == .relay(forward: .stale, stores: true, notStored: nil))
    }

    @Test("a 304 refreshes the copy and answers from it; a copy gone meanwhile is fetched again without validators")
    func notModified() throws {
        var transaction = Self.transaction(Self.entry(age: 120))
        _ = transaction.begin()
        #expect(Step(transaction.upstreamAnswered(status: 304, headers: [], requestTime: Self.now, now: Self.now)) == .merge)
        let refreshed = Self.entry(age: 0).entry
        #expect(
            Step(transaction.merged(refreshed))
                == .stored(detail: nil, cacheStatus: "larder; fwd=stale; fwd-status=304; stored; detail=revalidated", refresh: false)
        )
        #expect(Step(transaction.storedAnswerFailed()) == .fetch(conditional: false, timeout: nil))
        #expect(
            Step(transaction.upstreamAnswered(status: 200, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .stale, stores: true, notStored: nil))

        var unwritable = Self.transaction(Self.entry(age: 120))
        _ = unwritable.begin()
        _ = unwritable.upstreamAnswered(status: 304, headers: [], requestTime: Self.now, now: Self.now)
        #expect(
            Step(unwritable.merged(nil))
                == .stored(detail: nil, cacheStatus: "larder; fwd=stale; fwd-status=304; detail=revalidated", refresh: false))
    }

    @Test("stale-if-error: a 5xx is answered from a copy that may be served disconnected, else relayed")
    func staleIfError() {
        var usable = Self.transaction(Self.entry(age: 120))
        _ = usable.begin()
        #expect(
            Step(usable.upstreamAnswered(status: 503, headers: [], requestTime: Self.now, now: Self.now))
                == .stored(detail: "upstream-503", cacheStatus: nil, refresh: false, disconnected: true))
        // The copy cannot be read: the 5xx goes to the client after all.
        #expect(Step(usable.storedAnswerFailed()) == .relay(forward: .stale, stores: false, notStored: "status-503"))

        var mustRevalidate = Self.transaction(Self.entry([("Cache-Control", "max-age=60, must-revalidate")], age: 120))
        _ = mustRevalidate.begin()
        #expect(
            Step(mustRevalidate.upstreamAnswered(status: 503, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .stale, stores: false, notStored: "status-503")
        )

        var withinWindow = Self.transaction(Self.entry([("Cache-Control", "max-age=60, must-revalidate, stale-if-error=600")], age: 120))
        _ = withinWindow.begin()
        #expect(
            Step(withinWindow.upstreamAnswered(status: 500, headers: [], requestTime: Self.now, now: Self.now))
                == .stored(detail: "upstream-500", cacheStatus: nil, refresh: false, disconnected: true))
    }

    @Test("a 200 to a HEAD updates the stored copy when its validators and length agree, else is relayed")
    func headUpdates() {
        func answered(_ headers: [(String, String)], status: Int = 200) -> Step {
            var transaction = Self.transaction(Self.entry(age: 120), method: .HEAD)
            _ = transaction.begin()
            return Step(transaction.upstreamAnswered(status: status, headers: Self.fields(headers), requestTime: Self.now, now: Self.now))
        }
        #expect(answered([("Cache-Control", "max-age=600"), ("Content-Length", "10")]) == .merge)
        #expect(answered([("ETag", "\"v1\""), ("X-New", "1")]) == .merge)
        #expect(answered([("ETag", "\"v2\"")]) == .relay(forward: .stale, stores: false, notStored: "head"))
        #expect(answered([("Content-Length", "11")]) == .relay(forward: .stale, stores: false, notStored: "head"))
        #expect(answered([], status: 410) == .relay(forward: .stale, stores: false, notStored: "head"))

        var head = Self.transaction(Self.entry(age: 120), method: .HEAD)
        _ = head.begin()
        _ = head.upstreamAnswered(status: 200, headers: [], requestTime: Self.now, now: Self.now)
        #expect(
            Step(head.merged(Self.entry().entry))
                == .stored(detail: nil, cacheStatus: "larder; fwd=stale; fwd-status=200; stored; detail=revalidated", refresh: false))
    }

    @Test("upstream unreachable or slow: the copy when it may be served disconnected, else a page that says why")
    func upstreamFailures() {
        var withCopy = Self.transaction(Self.entry(age: 120))
        _ = withCopy.begin()
        #expect(
            Step(withCopy.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .stored(detail: "upstream-unreachable", cacheStatus: nil, refresh: false, disconnected: true))
        #expect(
            Step(withCopy.storedAnswerFailed())
                == .page(
                    .disconnected(
                        status: 504, reason: "refused",
                        unusable: "The cached copy cannot be read, or is in a content coding this client does not accept."),
                    cacheStatus: "larder; fwd=stale; detail=upstream-unreachable"
                )
        )

        var miss = Self.transaction()
        _ = miss.begin()
        _ = miss.lead()
        #expect(
            Step(miss.upstreamFailed(isTimeout: true, description: "timed out", now: Self.now))
                == .page(
                    .disconnected(status: 504, reason: "timed out", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable")
        )

        // network-only never answers from the copy, even when upstream fails.
        var networkOnly = Self.transaction(Self.entry(), strategy: .networkOnly)
        _ = networkOnly.begin()
        #expect(
            Step(networkOnly.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .page(
                    .disconnected(status: 502, reason: "refused", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable")
        )

        // network-first: no answer within the timeout serves the copy (the fetch goes on).
        var networkFirst = Self.transaction(Self.entry(kind: .precached, url: Self.page), url: Self.page)
        #expect(Step(networkFirst.begin()) == .fetch(conditional: true, timeout: .seconds(3)))
        #expect(
            Step(networkFirst.upstreamTimedOut(now: Self.now))
                == .stored(detail: "network-timeout", cacheStatus: nil, refresh: false, disconnected: true))

        // A stale no-cache copy is served when upstream fails, saying so; a strict route answers 504 with the reason.
        let noCacheCopy = Self.entry([("Cache-Control", "no-cache"), ("ETag", "\"a\"")], age: 5)
        var noCache = Self.transaction(noCacheCopy)
        #expect(Step(noCache.begin()) == .fetch(conditional: true, timeout: .seconds(3)))
        #expect(
            Step(noCache.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .stored(detail: "upstream-unreachable+relaxed-no-cache", cacheStatus: nil, refresh: false, disconnected: true))
        var strict = Self.transaction(noCacheCopy, offlineRule: .strict)
        #expect(Step(strict.begin()) == .fetch(conditional: true, timeout: nil))
        #expect(
            Step(strict.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .page(
                    .disconnected(status: 504, reason: "refused", unusable: Self.strictUnusable("no-cache")),
                    cacheStatus: "larder; fwd=stale; detail=upstream-unreachable"
                )
        )
        // The origin answering 5xx is not "cannot answer": RFC 9111 holds (no stale no-cache copy).
        var fiveHundred = Self.transaction(noCacheCopy)
        _ = fiveHundred.begin()
        #expect(
            Step(fiveHundred.upstreamAnswered(status: 503, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .stale, stores: false, notStored: "status-503"))
    }

    static func strictUnusable(_ directive: String) -> String {
        "The cached copy may not be served without revalidation (\(directive)), and this route is strict offline."
    }

    @Test("stand-ins: a sibling under a cache-busting query or the app shell answers a miss only when the origin cannot")
    func standIns() {
        let sibling = CacheTransaction.StandIn(candidate: Self.entry(age: 120), reason: "query-ignored")
        // Online: a miss is fetched unconditionally, waiting at most the network timeout for the head.
        var hung = Self.transaction(standIn: sibling)
        #expect(Step(hung.begin()) == .join)
        #expect(Step(hung.lead()) == .fetch(conditional: false, timeout: .seconds(3)))
        #expect(
            Step(hung.upstreamTimedOut(now: Self.now))
                == .stored(detail: "network-timeout+query-ignored", cacheStatus: nil, refresh: false, disconnected: true))
        // The origin answers: its answer, stored under the request's own key.
        var online = Self.transaction(standIn: sibling)
        _ = online.begin()
        _ = online.lead()
        #expect(
            Step(online.upstreamAnswered(status: 200, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .uriMiss, stores: true, notStored: nil))
        // Offline, backing off, unreachable.
        var offline = Self.transaction(offline: true, standIn: sibling)
        #expect(Step(offline.begin()) == .stored(detail: "offline+query-ignored", cacheStatus: nil, refresh: false, disconnected: true))
        var backingOff = Self.transaction(backingOff: true, standIn: sibling)
        #expect(Step(backingOff.begin()) == .mayProbe)
        #expect(
            Step(backingOff.probeAnswered(admitted: false, now: Self.now))
                == .stored(detail: "upstream-backoff+query-ignored", cacheStatus: nil, refresh: false, disconnected: true))
        var unreachable = Self.transaction(standIn: sibling)
        _ = unreachable.begin()
        _ = unreachable.lead()
        #expect(
            Step(unreachable.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .stored(detail: "upstream-unreachable+query-ignored", cacheStatus: nil, refresh: false, disconnected: true))
        // A 5xx is the origin answering: relayed, not a stand-in.
        var failing = Self.transaction(standIn: sibling)
        _ = failing.begin()
        _ = failing.lead()
        #expect(
            Step(failing.upstreamAnswered(status: 500, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .uriMiss, stores: false, notStored: "status-500"))
        // The app shell for a navigation, relaxed past its no-cache.
        let shell = CacheTransaction.StandIn(
            candidate: Self.entry([("Cache-Control", "no-cache")], age: 5, url: Self.page), reason: "navigation-fallback")
        var navigation = Self.transaction(url: Self.page, offline: true, standIn: shell)
        #expect(
            Step(navigation.begin())
                == .stored(detail: "offline+relaxed-no-cache+navigation-fallback", cacheStatus: nil, refresh: false, disconnected: true))
        var strictNavigation = Self.transaction(url: Self.page, offline: true, standIn: shell, offlineRule: .strict)
        #expect(
            Step(strictNavigation.begin())
                == .page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=uri-miss; detail=offline"))
        // network-only answers no stand-in when the network fails.
        var networkOnly = Self.transaction(strategy: .networkOnly, standIn: sibling)
        #expect(Step(networkOnly.begin()) == .fetch(conditional: false, timeout: nil))
        #expect(
            Step(networkOnly.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .page(
                    .disconnected(status: 502, reason: "refused", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable")
        )
    }

    @Test("a precached HTML page without .html, or JSON data, is network-first by default; other precached files cache-first")
    func precachedPages() throws {
        let lab = try HTTPURL(parsing: "http://site.example/lab")
        let html = Self.entry([("Content-Type", "text/html; charset=utf-8")], kind: .precached, url: lab).entry
        #expect(CacheTransaction.defaultStrategy(for: lab, entry: html) == .networkFirst)
        let script = Self.entry([("Content-Type", "text/javascript")], kind: .precached, url: lab).entry
        #expect(CacheTransaction.defaultStrategy(for: lab, entry: script) == .cacheFirst)
        let api = try HTTPURL(parsing: "http://site.example/api/me")
        for type in ["application/json; charset=utf-8", "application/ld+json"] {
            let data = Self.entry([("Content-Type", type)], kind: .precached, url: api).entry
            #expect(CacheTransaction.defaultStrategy(for: api, entry: data) == .networkFirst, "\(type)")
        }
        let runtime = Self.entry([("Content-Type", "text/html")], url: lab).entry
        #expect(CacheTransaction.defaultStrategy(for: lab, entry: runtime) == .http)
        // A declared request's answer is today's data whatever its type.
        #expect(CacheTransaction.defaultStrategy(for: lab, entry: script, declared: true) == .networkFirst)
    }

    @Test(
        "an answer no client waits for: a 304 refreshes the validated copy, a storable GET answer or a keyed 2xx is stored, a 5xx or a POST never",
        arguments: [
            // (method, keyed, status, validated?, expected: "refresh", "store" or "leave")
            (HTTPMethod.GET, false, 304, true, "refresh"),
            (.GET, false, 304, false, "leave"),
            (.GET, false, 200, true, "store"),
            (.GET, false, 503, true, "leave"),
            (.GET, false, 206, true, "leave"),
            (.POST, false, 200, true, "leave"),
            (.POST, true, 201, false, "store"),
            (.POST, true, 500, false, "leave"),
        ])
    func absorption(method: HTTPMethod, keyed: Bool, status: Int, validated: Bool, expected: String) {
        let stored = Self.entry([("Cache-Control", "max-age=60"), ("ETag", "\"a\"")])
        let absorption = CacheTransaction.absorption(
            request: HTTPRequestHead(version: .http1_1, method: method, uri: Self.url.absoluteString),
            owner: AnswerOwner(client: .local, request: [HeaderField](), url: Self.url), url: Self.url, key: CacheKey(url: Self.url),
            strategy: .http, keyed: keyed, validating: validated ? stored.entry : nil, status: status,
            headers: [HeaderField(name: "Cache-Control", value: "max-age=60")], requestTime: Self.now)
        switch absorption {
        case .refresh(let entry): #expect(expected == "refresh" && entry.key == stored.entry.key)
        case .store(let target): #expect(expected == "store" && target.key == CacheKey(url: Self.url))
        case .leave: #expect(expected == "leave")
        }
    }

    @Test(
        "the one hit decision: CacheDecision's, with a precached copy's hit saying precached unless a route chose the strategy",
        arguments: [
            // (strategy, age in s of a max-age=60 copy, precached, routed, expected)
            (CachingStrategy.http, 10.0, false, false, "answer:nil"),
            (.http, 10.0, true, false, "answer:precached"),
            (.http, 90.0, false, false, "forward"),
            (.cacheFirst, 90.0, true, false, "answer:precached"),
            (.cacheFirst, 90.0, true, true, "answer:cache-first"),
            (.cacheFirst, 90.0, false, false, "answer:cache-first"),
            (.networkFirst, 10.0, true, false, "forward"),
            (.staleWhileRevalidate, 90.0, true, false, "refresh:stale-while-revalidate"),
        ])
    func hitDecision(strategy: CachingStrategy, age: TimeInterval, precached: Bool, routed: Bool, expected: String) {
        let stored = Self.entry(age: age, kind: precached ? .precached : .runtime)
        let decision = CacheTransaction.hitDecision(
            CacheTransaction.plainContext(strategy), stored: stored.freshness, precached: precached, routed: routed, now: Self.now)
        switch decision {
        case .answerFromCache(let detail): #expect(expected == "answer:\(detail ?? "nil")")
        case .answerAndRefresh(let detail): #expect(expected == "refresh:\(detail ?? "nil")")
        case .forward: #expect(expected == "forward")
        case .gatewayTimeout: #expect(expected == "timeout")
        }
    }

    @Test("a background refresh asks for the whole representation with a GET, keeping the client's other fields")
    func backgroundRefreshRequest() {
        let client = HTTPRequestHead(
            version: .http1_1, method: .HEAD, uri: Self.url.absoluteString,
            headers: ["Range": "bytes=0-9", "If-Range": "\"a\"", "Accept-Language": "fr", "Cookie": "k=v"])
        let refresh = CacheTransaction.backgroundRefresh(of: client)
        #expect(refresh.method == .GET)
        #expect(refresh.uri == client.uri)
        #expect(refresh.headers.map { "\($0.name): \($0.value)" } == ["If-Range: \"a\"", "Accept-Language: fr", "Cookie: k=v"])
    }

    @Test(
        "the strategy: network-only without access to the stored answer, network-first when keyed, else the route's, else the default",
        arguments: [
            // (route, keyed, may use the store, declared GET, precached script?) -> strategy
            (CachingStrategy?.none, false, false, false, true, CachingStrategy.networkOnly),
            (.some(.cacheOnly), true, false, false, true, .networkOnly),
            (.none, true, true, false, true, .networkFirst),
            (.some(.cacheOnly), true, true, false, true, .networkFirst),
            (.some(.staleWhileRevalidate), false, true, true, true, .staleWhileRevalidate),
            (.none, false, true, false, true, .cacheFirst),
            (.none, false, true, true, true, .networkFirst),
            (.none, false, true, true, false, .http),
        ])
    func strategyOfARequest(
        route: CachingStrategy?, keyed: Bool, mayUseStore: Bool, declaredGet: Bool, precached: Bool, expected: CachingStrategy
    ) throws {
        let url = try HTTPURL(parsing: "http://site.example/app.js")
        let entry = Self.entry([("Content-Type", "text/javascript")], kind: precached ? .precached : .runtime, url: url).entry
        #expect(
            CacheTransaction.strategy(
                url: url, candidate: entry, routeStrategy: route, keyed: keyed, mayUseStore: mayUseStore, declaredGet: declaredGet)
                == expected)
    }

    @Test(
        "the transaction decides its strategy from what it starts with: route, keyed, declared GET, declared answer withheld",
        arguments: [
            // (route, keyed, declared GET, withheld) -> strategy, for a precached script
            (CachingStrategy?.none, false, false, false, CachingStrategy.cacheFirst),
            (.some(.staleWhileRevalidate), false, false, false, .staleWhileRevalidate),
            (.none, true, false, false, .networkFirst),
            (.none, false, true, false, .networkFirst),
            (.some(.cacheOnly), false, true, true, .networkOnly),
        ])
    func strategyOfATransaction(route: CachingStrategy?, keyed: Bool, declaredGet: Bool, withheld: Bool, expected: CachingStrategy) {
        var start = Self.transaction(Self.entry([("Content-Type", "text/javascript")], kind: .precached), strategy: route).start
        start.keyed = keyed ? .route : nil
        start.declaredGet = declaredGet
        start.declaredWithheld = withheld
        #expect(CacheTransaction(start).strategy == expected)
    }

    @Test(
        "a keyed read with no answer of its own: a stand-in body looked for only once the origin cannot answer, and used as the copy would be"
    )
    func standInBody() {
        let stored = Self.entry([("Cache-Control", "no-store")])
        let standIn = CacheTransaction.StandIn(candidate: stored, reason: "stand-in-body")
        func fallBack(
            _ transaction: CacheTransaction, offline: Bool = false, found: CacheTransaction.StandIn?, noneNear: Bool
        ) -> (first: Step, second: Step?, third: Step?) {
            var transaction = transaction
            let first = Step(transaction.begin())
            var second: Step?
            if !offline {
                second = Step(transaction.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
            }
            let third = Step(transaction.standInSought(found, noneNear: noneNear, now: Self.now))
            return (first, offline ? nil : second, third)
        }
        // Online: fetched as ever, nothing looked for.
        var online = Self.transaction(method: .POST, keyed: .route, seeksStandInBody: true)
        #expect(Step(online.begin()) == .fetch(conditional: false, timeout: nil))
        #expect(
            Step(online.upstreamAnswered(status: 200, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .uriMiss, stores: true, notStored: nil))

        let unreachable = fallBack(
            Self.transaction(method: .POST, keyed: .route, seeksStandInBody: true), found: standIn, noneNear: false)
        #expect(unreachable.second == .seekStandIn)
        #expect(
            unreachable.third == .stored(detail: "upstream-unreachable+stand-in-body", cacheStatus: nil, refresh: false, disconnected: true)
        )

        let graphQL = fallBack(
            Self.transaction(method: .POST, keyed: .graphQLQuery, seeksStandInBody: true), found: standIn, noneNear: false)
        #expect(
            graphQL.third
                == .stored(detail: "upstream-unreachable+graphql-query+stand-in-body", cacheStatus: nil, refresh: false, disconnected: true)
        )

        let offline = fallBack(
            Self.transaction(method: .POST, offline: true, keyed: .route, seeksStandInBody: true), offline: true, found: standIn,
            noneNear: false)
        #expect(offline.first == .seekStandIn)
        #expect(offline.third == .stored(detail: "offline+stand-in-body", cacheStatus: nil, refresh: false, disconnected: true))

        let noneNear = fallBack(Self.transaction(method: .POST, keyed: .route, seeksStandInBody: true), found: nil, noneNear: true)
        #expect(
            noneNear.third
                == .page(
                    .disconnected(status: 502, reason: "refused", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable+body-not-near"))
        let noneStored = fallBack(Self.transaction(method: .POST, keyed: .route, seeksStandInBody: true), found: nil, noneNear: false)
        #expect(
            noneStored.third
                == .page(
                    .disconnected(status: 502, reason: "refused", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable"))

        // A health check sent as a keyed read: the error answer, no stand-in looked for.
        var healthStart = Self.transaction(method: .POST, offline: true, keyed: .route, seeksStandInBody: true).start
        healthStart.healthCheck = true
        var health = CacheTransaction(healthStart)
        #expect(
            Step(health.begin())
                == .page(
                    .disconnected(
                        status: 504, reason: nil,
                        unusable:
                            "This is a health check: Larder never answers it from the cache while the site cannot answer, so the app hears that its server is down."
                    ), cacheStatus: "larder; fwd=uri-miss; detail=offline+health-check"))

        // The read's own answer wins; no stand-in is looked for.
        var own = Self.transaction(stored, method: .POST, keyed: .route, seeksStandInBody: true)
        _ = own.begin()
        #expect(
            Step(own.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .stored(detail: "upstream-unreachable", cacheStatus: nil, refresh: false, disconnected: true))
    }

    @Test(
        "a keyed request: always fetched alone without validators, a 5xx relayed, any 2xx stored, the copy whatever it says when the origin cannot answer"
    )
    func keyed() {
        let noStore = Self.entry([("Cache-Control", "no-store")])
        let fresh = Self.entry()
        let failed: (inout CacheTransaction) -> CacheTransaction.Action = {
            $0.upstreamFailed(isTimeout: false, description: "refused", now: Self.now)
        }
        let timedOut: (inout CacheTransaction) -> CacheTransaction.Action = { $0.upstreamTimedOut(now: Self.now) }
        let cases: [(String, CacheTransaction, [Step], ((inout CacheTransaction) -> CacheTransaction.Action)?, Step?)] = [
            (
                "miss: fetched alone, no timeout", Self.transaction(method: .POST, keyed: .route),
                [.fetch(conditional: false, timeout: nil)], nil, nil
            ),
            (
                "fresh copy: still fetched, unconditionally, the copy after 3 s",
                Self.transaction(fresh, method: .POST, keyed: .declared), [.fetch(conditional: false, timeout: .seconds(3))], nil, nil
            ),
            (
                "unreachable, declared: the no-store copy, detail=declared", Self.transaction(noStore, method: .POST, keyed: .declared),
                [.fetch(conditional: false, timeout: .seconds(3))], failed,
                .stored(detail: "declared", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "unreachable, route: the copy, the usual detail, no relaxed suffix",
                Self.transaction(noStore, method: .POST, keyed: .route),
                [.fetch(conditional: false, timeout: .seconds(3))], failed,
                .stored(detail: "upstream-unreachable", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "hung: the copy at the network timeout", Self.transaction(noStore, method: .POST, keyed: .route),
                [.fetch(conditional: false, timeout: .seconds(3))], timedOut,
                .stored(detail: "network-timeout", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "unreachable, nothing stored: the 502 page", Self.transaction(method: .POST, keyed: .declared),
                [.fetch(conditional: false, timeout: nil)], failed,
                .page(
                    .disconnected(status: 502, reason: "refused", unusable: nil),
                    cacheStatus: "larder; fwd=uri-miss; detail=upstream-unreachable")
            ),
            (
                "offline: the copy, no upstream contact", Self.transaction(noStore, method: .POST, offline: true, keyed: .route),
                [.stored(detail: "offline", cacheStatus: nil, refresh: false, disconnected: true)], nil, nil
            ),
            (
                "offline, declared, nothing stored: the 504 page", Self.transaction(method: .POST, offline: true, keyed: .declared),
                [.page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=uri-miss; detail=offline")], nil,
                nil
            ),
            (
                "backing off, not the probe: the copy at once",
                Self.transaction(noStore, method: .POST, backingOff: true, keyed: .declared),
                [.mayProbe], { $0.probeAnswered(admitted: false, now: Self.now) },
                .stored(detail: "declared", cacheStatus: nil, refresh: false, disconnected: true)
            ),
            (
                "backing off, nothing stored: tried anyway, as an unkeyed POST is",
                Self.transaction(method: .POST, backingOff: true, keyed: .route), [.fetch(conditional: false, timeout: nil)], nil, nil
            ),
        ]
        for (name, transaction, steps, event, then) in cases {
            var transaction = transaction
            #expect(Step(transaction.begin()) == steps[0], "\(name)")
            if let event, let then {
                #expect(Step(event(&transaction)) == then, "\(name)")
            }
        }

        func answered(_ candidate: CacheTransaction.Candidate?, status: Int, headers: [(String, String)]) -> Step {
            var transaction = Self.transaction(candidate, method: .POST, keyed: .route)
            _ = transaction.begin()
            return Step(transaction.upstreamAnswered(status: status, headers: Self.fields(headers), requestTime: Self.now, now: Self.now))
        }
        #expect(
            answered(nil, status: 200, headers: [("Cache-Control", "no-store")]) == .relay(forward: .uriMiss, stores: true, notStored: nil))
        #expect(answered(fresh, status: 201, headers: [("Set-Cookie", "a=1")]) == .relay(forward: .request, stores: true, notStored: nil))
        #expect(answered(fresh, status: 503, headers: []) == .relay(forward: .request, stores: false, notStored: "status-503"))
        #expect(answered(fresh, status: 304, headers: []) == .relay(forward: .request, stores: false, notStored: "status-304"))
        #expect(
            answered(nil, status: 404, headers: [("Cache-Control", "max-age=60")])
                == .relay(forward: .uriMiss, stores: false, notStored: "status-404"))

        // The copy of a disconnected answer cannot be read: the page.
        var unreadable = Self.transaction(noStore, method: .POST, keyed: .declared)
        _ = unreadable.begin()
        _ = unreadable.upstreamTimedOut(now: Self.now)
        guard case .answerPage(.disconnected(504, _, _), _) = unreadable.storedAnswerFailed() else {
            Issue.record("an unreadable copy gives a 504 page")
            return
        }
    }

    @Test("a stored copy that cannot be read is fetched as a miss")
    func unreadableHit() {
        var transaction = Self.transaction(Self.entry())
        #expect(Step(transaction.begin()) == .stored(detail: nil, cacheStatus: nil, refresh: false))
        #expect(Step(transaction.storedAnswerFailed()) == .join)
        #expect(Step(transaction.lead()) == .fetch(conditional: false, timeout: nil))
    }
}
