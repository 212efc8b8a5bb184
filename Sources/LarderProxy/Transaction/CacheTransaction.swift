import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1

/// One GET or HEAD through the cache, as a value: it takes what happened (the lookup, upstream's
/// answer or failure, a timeout, a stored answer that could not be given) and says what to do next.
/// It does no I/O; ``ForwardProxy`` executes its actions and feeds the results back in, so every
/// rule of what to answer lives here and is tested without sockets
/// (Tests/LarderProxyTests/CacheTransactionTests.swift).
///
/// The shape: decide from the stored copy and the strategy (``CacheDecision``); answer from the
/// cache, or forward (checking the origin's back-off, joining another request's fetch of the same
/// miss); then from upstream's answer relay and store it, merge a 304, or serve the copy for a 5xx
/// (`stale-if-error`); when the origin cannot answer (unreachable, no head within the network
/// timeout while something stored could answer, backing off, or the proxy offline), fall back to
/// the copy, or to a stand-in (the same path under a cache-busting query, or the app shell for a
/// navigation), under the route's offline rule; else an error page that says why
/// (docs/SERVING.md, "Offline fallback").
///
/// A keyed request (a POST keyed by its body, a GraphQL GET form: ``Keyed``) takes the same
/// steps under its own rules (docs/SERVING.md, "Requests with bodies"): always to the network,
/// alone, without validators; a 5xx is relayed; when the origin cannot answer, the newest stored
/// answer under its key, whatever its `Cache-Control`; and a 2xx answer is stored whatever it says.
struct CacheTransaction: Sendable {
    /// A stored response with its freshness.
    struct Candidate: Sendable {
        var entry: CachedEntry
        var freshness: ResponseFreshness
    }

    /// A stored response for another key that may answer, only while the origin cannot, a
    /// request with nothing stored of its own.
    struct StandIn: Sendable {
        var candidate: Candidate
        /// Why it stands in, for `Cache-Status`: `query-ignored`, `navigation-fallback` or
        /// `stand-in-body` (and where the bodies differ).
        var reason: String
    }

    /// The lookup: the stored response that matches the request, or why none does (and what may
    /// stand in for it).
    struct Lookup: Sendable {
        var candidate: Candidate?
        var missReason: CacheStatus.ForwardReason
        var standIn: StandIn?

        static let miss = Lookup(candidate: nil, missReason: .uriMiss)
    }

    /// Why a request is keyed by its body (or GraphQL GET form) rather than by its URL alone.
    enum Keyed: Sendable, Equatable {
        /// It matches a request the config declares: a stored answer says `detail=declared`.
        case declared
        /// Its route opts its method in (`cacheMethods`, `bodyKey`): a stored answer gives the
        /// usual disconnected detail.
        case route
        /// A CORS preflight, keyed by its page origin, method and fields (``CORSPreflight``): a
        /// stored answer says `detail=preflight+` and the disconnected detail.
        case preflight
        /// A GraphQL query, keyed with no config (``GraphQLRead``): a stored answer gives the
        /// usual disconnected detail and `+graphql-query`.
        case graphQLQuery
    }

    /// Everything known when the transaction starts.
    struct Start: Sendable {
        var request: HTTPRequestHead
        /// Who asks: a personal answer is stored for this owner alone (``AnswerOwner``).
        var owner: AnswerOwner
        var url: HTTPURL
        var key: CacheKey
        var lookup: Lookup
        /// The strategy of the configured route that covers the URL, nil where the defaults apply
        /// (the transaction's ``CacheTransaction/strategy`` is made from it).
        var routeStrategy: CachingStrategy?
        var routeMaxAge: Duration?
        var networkTimeout: Duration
        /// Which stored responses may answer when the origin cannot.
        var offlineRule: OfflineRule = .relaxed
        var offline: Bool
        /// Whether the URL's origin failed repeatedly and is backing off: a fetch then first asks
        /// whether it may go as the back-off's probe (``Action/mayProbe``).
        var backingOff: Bool
        var now: Date
        /// Set for a keyed request, whose `key` is its keyed key (``CacheKey/keyed(method:bodyKey:digest:)``).
        var keyed: Keyed? = nil
        /// The partial response stored for the key (``CacheKey/partial``), looked up for a GET
        /// with no complete copy: it answers a range it holds, and is completed by later ones.
        var partial: Candidate? = nil
        /// Whether, with no stored answer of its own, a keyed read may be answered while the
        /// origin cannot by the stored answer to the same read whose body is nearest
        /// (``StandInBody``): looked for only then (``Action/seekStandInBody``).
        var seeksStandInBody = false
        /// Whether the user chose to keep the URL's site's `no-store` pages (``KeptNoStore``): an
        /// answer refused for its `no-store` alone is then stored for `owner`.
        var keepsNoStore = false
        /// A health check (``HealthChecks``): never answered from the cache while the origin cannot
        /// answer, its error answer saying `+health-check`.
        var healthCheck = false
        /// A declared GET asks for the key now: its precached answer is served network-first.
        var declaredGet = false
        /// A declared request's answer was withheld from this request (its page is not among the
        /// `pageOrigins` listed): it is served network-only, and its error answer says
        /// `+declared-withheld`.
        var declaredWithheld = false

        /// Whether a configured route sets the strategy (else the defaults apply).
        var routed: Bool {
            self.routeStrategy != nil
        }
    }

    /// What the upstream request says of ranges (``UpstreamRequestPlan/Range``).
    typealias UpstreamRange = UpstreamRequestPlan.Range

    /// One fetch upstream and what the cache knows of it.
    struct Fetch: Sendable {
        var lookup: Lookup
        var reason: CacheStatus.ForwardReason
        /// How long to wait for the head before answering from the copy (nil: as long as it takes).
        var timeout: Duration?
        /// What the upstream request asks of ranges.
        var range: UpstreamRange = .none
    }

    /// What the executor sends upstream.
    struct UpstreamPlan: Sendable, Equatable {
        /// The stored response whose validators go upstream (nil: an unconditional request).
        var validating: CachedEntry?
        /// How long to wait for the response head (nil: as long as it takes); the late answer is
        /// still stored, in the background.
        var headTimeout: Duration?
        /// What it asks of ranges.
        var range: UpstreamRange = .none

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.validating?.key == rhs.validating?.key && lhs.validating?.bodyHash == rhs.validating?.bodyHash
                && lhs.headTimeout == rhs.headTimeout && lhs.range == rhs.range
        }
    }

    /// An answer without a stored body: an error page and its `Cache-Status`.
    enum Page: Sendable, Equatable {
        /// 504: the request may only be answered from the cache and there is no usable copy.
        case notCached(detail: String)
        /// Upstream cannot be used (`reason`; nil: offline mode) and no copy may answer;
        /// `unusable` says why the copy there is cannot.
        case disconnected(status: Int, reason: String?, unusable: String?)
    }

    /// Where an upstream answer is stored.
    struct StoreTarget: Sendable, Equatable {
        /// The key, or the variant's key for a response that varies.
        var key: CacheKey
        var url: HTTPURL
        var requestTime: Date
        /// The request's values of the headers the response varies on.
        var varyValues: [HeaderField]
    }

    /// How an upstream answer is relayed.
    struct Relay: Sendable, Equatable {
        var forwardReason: CacheStatus.ForwardReason
        var storeAs: StoreTarget?
        /// Why it is not stored (`Cache-Status` detail `not-stored-REASON`).
        var notStoredReason: String?
        /// Set for a 206: how its bytes join the stored partial response.
        var partial: PartialRelay? = nil
        /// A `Cache-Status` detail saying why the request was forwarded as it was (a write not
        /// queued, say).
        var detail: String? = nil
        /// Stored against its `no-store` because the user chose its site (``KeptNoStore``): the
        /// answer says `kept-no-store` while it is stored.
        var kept = false

        /// Not stored after all: the key is a file of a game's complete version, which alone
        /// answers for it offline (docs/SERVING.md, "One version of a game").
        mutating func keepingCompleteVersion() {
            guard self.storeAs != nil else { return }
            self.storeAs = nil
            self.notStoredReason = Self.completeVersion
        }

        /// The `not-stored-` reason of an answer at a complete version's file.
        static let completeVersion = "complete-version"

        /// The `Cache-Status` of the relayed answer with `upstreamStatus`: `stored` only while a
        /// body is being stored and the store works (a body cut short is never stored, and the
        /// client then sees a broken response); the detail says why it is not stored (unless the
        /// method alone said so), or that it is over the entry limit (`tooLarge`), or what
        /// ``detail`` says; a 206 completing the stored part says `completed`.
        func cacheStatus(upstreamStatus: Int, storing: Bool, tooLarge: Bool) -> CacheStatus {
            var status = CacheStatus.forward(self.forwardReason, status: upstreamStatus, stored: storing)
            if let partial = self.partial, partial.whole {
                status.detail = self.notStoredReason.map { "not-stored-\($0)" } ?? "completed"
                return status
            }
            if let notStoredReason = self.notStoredReason, self.forwardReason != .method {
                status.detail = "not-stored-\(notStoredReason)"
            } else if self.storeAs != nil, tooLarge {
                status.detail = "not-stored-too-large"
            } else if self.storeAs != nil, self.kept, storing {
                status.detail = KeptNoStore.detail
            }
            if let detail = self.detail {
                status.detail = detail
            }
            return status
        }
    }

    /// A 206 on its way: what is stored is the stored partial's bytes `before`, the new ones,
    /// then its bytes `after` (``PartialContent/Combination``), under the status and headers
    /// ``PartialContent/storedHead(newest:)`` gives for `result`.
    struct PartialRelay: Sendable, Equatable {
        /// The stored partial whose bytes join the new ones, and where they go; nil when the new
        /// part stands alone (it replaces any stored one).
        var joining: Joining?
        /// What is stored when the body has come.
        var result: PartialContent
        /// The client asked for the whole: it gets the combined bytes as a 200, not the 206.
        var whole: Bool

        struct Joining: Sendable, Equatable {
            var entry: CachedEntry
            var combination: PartialContent.Combination

            static func == (lhs: Self, rhs: Self) -> Bool {
                lhs.entry.key == rhs.entry.key && lhs.entry.bodyHash == rhs.entry.bodyHash && lhs.combination == rhs.combination
            }
        }
    }

    /// What the executor does next.
    enum Action: Sendable {
        /// Answer from `entry` with this `Cache-Status` detail (or this whole `Cache-Status`), then
        /// refresh it in the background when `refresh` is set; `disconnected`: because the origin
        /// could not answer (the answer says so: `Larder-Offline: 1`). If its body cannot be opened
        /// or its coding served, nothing is written and ``storedAnswerFailed()`` says what next.
        case answerStored(CachedEntry, detail: String?, cacheStatus: CacheStatus?, refresh: Bool, disconnected: Bool = false)
        /// Answer with an error page, with this `Cache-Status`. Done.
        case answerPage(Page, cacheStatus: CacheStatus)
        /// The origin is backing off: ask whether this request may go as its probe (at most one a
        /// second, ``HostHealth/admit(now:policy:)``), and say so with ``probeAnswered(admitted:now:)``.
        case mayProbe
        /// Join the fetch of the same miss in flight: ``lead()`` when there is none, else wait for it
        /// and ``followerWoke(_:joinedAfterAnswerBegan:now:)`` with what it stored. When `mayLead`
        /// is false and none is in flight, fetch alone (``lead()``, without others following): a
        /// request with its own preconditions would get an answer (a 304) that stores nothing
        /// for those who followed it.
        case joinInFlight(mayLead: Bool)
        /// Send the request upstream: ``upstreamAnswered(status:headers:requestTime:now:)``,
        /// ``upstreamFailed(isTimeout:description:now:)`` or ``upstreamTimedOut(now:)``.
        case fetch(UpstreamPlan)
        /// Apply the 304 (or the 200 to a HEAD) just received to `entry`: ``merged(_:)``.
        case mergeNotModified(CachedEntry)
        /// Stream upstream's answer to the client, storing it when the relay says so. Done.
        case relay(Relay)
        /// The origin cannot answer a keyed read that has no stored answer: look for the stored
        /// answer to the same read whose body is nearest, and say what was found with
        /// ``standInSought(_:noneNear:now:)``.
        case seekStandInBody
    }

    private enum State: Sendable {
        case idle
        /// Answering from a stored entry; `then` applies if it cannot.
        case answering(then: AfterStoredFailure)
        /// Waiting to hear whether the fetch may go as the back-off's probe.
        case probing(Lookup, reason: CacheStatus.ForwardReason, timeout: Duration?)
        case joining(Fetch)
        case fetching(Fetch)
        case merging(Fetch, status: Int, headers: [HeaderField], requestTime: Date)
        /// Falling back, with a stand-in body to look for first.
        case seekingStandIn(Lookup, detail: String, reason: String?, status: Int)
        case done
    }

    /// What follows a stored answer that could not be given.
    private enum AfterStoredFailure: Sendable {
        /// Fetch as for a miss.
        case forwardAsMiss
        /// The disconnected fallback's copy: say it cannot be read.
        case unreadableFallback(detail: String, reason: String?)
        /// Relay the 5xx that the copy was to replace.
        case relayAnswer(Fetch, status: Int, headers: [HeaderField], requestTime: Date)
        /// The copy a 304 validated vanished: that 304 answers nothing the client asked.
        case fetchUnconditionally(Fetch)
        /// The copy another request stored cannot be read: fetch alone.
        case fetchAlone(Fetch)
    }

    let start: Start
    /// The strategy the request is served by (``strategy(url:candidate:routeStrategy:keyed:mayUseStore:declaredGet:)``),
    /// decided once, as the transaction is made.
    let strategy: CachingStrategy
    private var state = State.idle
    /// Set once the request may go as the back-off's probe: it then fetches as if none were on.
    private var probeAdmitted = false
    /// Set once a stand-in body was looked for.
    private var standInSought = false

    init(_ start: Start) {
        self.start = start
        self.strategy = Self.strategy(
            url: start.url, candidate: start.lookup.candidate?.entry, routeStrategy: start.routeStrategy, keyed: start.keyed != nil,
            mayUseStore: !start.declaredWithheld, declaredGet: start.declaredGet)
    }

    /// Whether the transaction has given its answer.
    var isDone: Bool {
        if case .done = self.state { true } else { false }
    }

    // MARK: - Events

    /// The first action.
    mutating func begin() -> Action {
        precondition(self.isIdle, "begin() once")
        let start = self.start
        if start.offline {
            return self.fallBack(start.lookup, detail: "offline", reason: nil, status: 504, now: start.now)
        }
        if start.keyed != nil {
            // Network-first whatever is stored: the copy only answers for an origin that cannot.
            let reason: CacheStatus.ForwardReason = start.lookup.candidate == nil ? .uriMiss : .request
            return self.forward(start.lookup, reason: reason, timeout: start.lookup.candidate == nil ? nil : start.networkTimeout)
        }
        if start.healthCheck, start.backingOff {
            // Even a fresh copy is not the server's health now: ask (as the probe) or say it is down.
            return self.forward(start.lookup, reason: start.lookup.candidate == nil ? start.lookup.missReason : .request, timeout: nil)
        }
        let candidate = start.lookup.candidate
        if candidate == nil, let partial = start.partial, self.partialHolds(partial),
            case .answerFromCache = CacheDecision.decide(self.decisionContext, stored: partial.freshness, now: start.now)
        {
            // RFC 9111 section 3.4: a range wholly within the stored part, while it is fresh.
            self.state = .answering(then: .forwardAsMiss)
            return .answerStored(partial.entry, detail: "partial", cacheStatus: nil, refresh: false)
        }
        switch Self.hitDecision(
            self.decisionContext, stored: candidate?.freshness, precached: candidate?.entry.kind == .precached, routed: start.routed,
            now: start.now)
        {
        case .answerFromCache(let detail):
            guard let candidate else { return self.forward(.miss, reason: .uriMiss, timeout: nil) }
            self.state = .answering(then: .forwardAsMiss)
            return .answerStored(candidate.entry, detail: detail, cacheStatus: nil, refresh: false)
        case .answerAndRefresh(let detail):
            guard let candidate else { return self.forward(.miss, reason: .uriMiss, timeout: nil) }
            self.state = .answering(then: .forwardAsMiss)
            return .answerStored(candidate.entry, detail: detail, cacheStatus: nil, refresh: true)
        case .gatewayTimeout(let detail):
            self.state = .done
            return .answerPage(.notCached(detail: detail), cacheStatus: .forward(start.lookup.missReason, detail: detail))
        case .forward(let reason, let timeout):
            // What could answer disconnected is not held hostage by a hung origin: at most the
            // network timeout for the head, then the fallback (the fetch goes on and refreshes it).
            let canFallBack = self.disconnectedAnswer(start.lookup, now: start.now) != nil
            return self.forward(start.lookup, reason: reason, timeout: timeout ?? (canFallBack ? start.networkTimeout : nil))
        }
    }

    /// The one hit decision, for the transaction and the immediate path (``ImmediateHits``)
    /// alike: ``CacheDecision`` for the stored response's freshness, a precached copy's hit
    /// saying `precached` unless a route set the strategy.
    static func hitDecision(
        _ context: CacheDecision.Context, stored: ResponseFreshness?, precached: Bool, routed: Bool, now: Date
    ) -> CacheDecision {
        let decision = CacheDecision.decide(context, stored: stored, now: now)
        if case .answerFromCache = decision, precached, !routed {
            return .answerFromCache(detail: "precached")
        }
        return decision
    }

    /// The context of the plainest request under `strategy`: no cache directive, no route.
    static func plainContext(_ strategy: CachingStrategy) -> CacheDecision.Context {
        CacheDecision.Context(strategy: strategy, networkTimeout: .zero, request: RequestCacheDirectives(cacheControl: [], pragma: []))
    }

    /// The stored answer the last action asked for could not be given; nothing was written.
    mutating func storedAnswerFailed() -> Action {
        guard case .answering(let then) = self.state else { preconditionFailure("no stored answer pending") }
        switch then {
        case .forwardAsMiss:
            return self.forward(.miss, reason: .uriMiss, timeout: nil)
        case .unreadableFallback(let detail, let reason):
            self.state = .done
            let page = Page.disconnected(
                status: 504,
                reason: reason,
                unusable: "The cached copy cannot be read, or is in a content coding this client does not accept."
            )
            return .answerPage(page, cacheStatus: .forward(.stale, detail: detail))
        case .relayAnswer(let fetch, let status, let headers, let requestTime):
            return self.relay(fetch, status: status, headers: headers, requestTime: requestTime)
        case .fetchUnconditionally(var fetch):
            fetch.lookup = .miss
            fetch.timeout = nil
            return self.fetch(fetch)
        case .fetchAlone(let fetch):
            return self.fetch(fetch)
        }
    }

    /// Whether the fetch ``Action/mayProbe`` asked about may go to the backing-off origin as its
    /// probe; when not, the request is answered as the back-off says (the stored copy, or an offline miss).
    mutating func probeAnswered(admitted: Bool, now: Date) -> Action {
        guard case .probing(let lookup, let reason, let timeout) = self.state else { preconditionFailure("not probing") }
        guard admitted else {
            let why = "\(self.start.url.origin) failed repeatedly and is backing off."
            return self.fallBack(lookup, detail: "upstream-backoff", reason: why, status: 502, now: now)
        }
        self.probeAdmitted = true
        return self.forward(lookup, reason: reason, timeout: timeout)
    }

    /// No fetch of this miss was in flight: this request fetches it.
    mutating func lead() -> Action {
        guard case .joining(let fetch) = self.state else { preconditionFailure("not joining") }
        return self.fetch(fetch)
    }

    /// The fetch this request waited for ended; `stored` is the lookup's match after it (nil when
    /// it stored nothing usable or took too long). One download per burst (docs/SERVING.md,
    /// "Coalescing"): a request that joined before the answer began gets what was stored whatever
    /// its freshness (a response with only an `ETag` is stale at once) and whatever it asked
    /// (`no-cache`, `max-age=0`): the answer arrived after it was made, to a request forwarded
    /// meanwhile, as forwarding its own would have given. A request that joined once the answer
    /// had begun (`joinedAfterAnswerBegan`) is decided as any request against a stored copy under
    /// the `http` strategy: served when the copy may serve it, else it goes to the origin with the
    /// copy's validators (a 304 at worst, not a second download).
    mutating func followerWoke(_ stored: Candidate?, joinedAfterAnswerBegan: Bool, now: Date) -> Action {
        guard case .joining(var fetch) = self.state else { preconditionFailure("not joining") }
        // A page kept against its no-store answers only while the origin cannot (KeptNoStore).
        guard let stored, !stored.freshness.keptNoStore else { return self.fetch(fetch) }
        if self.strategy == .http, joinedAfterAnswerBegan,
            case .forward = CacheDecision.decide(self.decisionContext, stored: stored.freshness, now: now)
        {
            fetch.lookup.candidate = stored
            fetch.reason = .stale
            return self.fetch(fetch)
        }
        self.state = .answering(then: .fetchAlone(fetch))
        return .answerStored(stored.entry, detail: "coalesced", cacheStatus: nil, refresh: false)
    }

    /// Upstream answered with this head.
    mutating func upstreamAnswered(status: Int, headers: [HeaderField], requestTime: Date, now: Date) -> Action {
        guard case .fetching(let fetch) = self.state else { preconditionFailure("not fetching") }
        let validating = self.validating(fetch)
        // stale-if-error (RFC 5861 section 4; docs/SERVING.md): a 5xx with a usable copy serves the copy.
        // The origin did answer, so RFC 9111's rule holds here whatever the route's offline rule.
        if status >= 500, !self.start.healthCheck, let candidate = validating,
            CacheDecision.disconnectedUse(candidate.freshness, precached: candidate.entry.kind == .precached, rule: .strict, now: now)
                == .allowed
        {
            self.state = .answering(then: .relayAnswer(fetch, status: status, headers: headers, requestTime: requestTime))
            return .answerStored(candidate.entry, detail: "upstream-\(status)", cacheStatus: nil, refresh: false, disconnected: true)
        }
        // A 304 to Larder's own conditional request validates the stored copy (RFC 9111 4.3.4); a
        // 200 to a HEAD that does not contradict it updates it the same way (4.3.5).
        if let candidate = validating,
            status == 304
                || (self.start.request.method == .HEAD
                    && HeadResponseUpdate.updates(
                        storedStatus: candidate.entry.status, stored: candidate.entry.headers, storedBodySize: candidate.entry.bodySize,
                        status: status, headers: headers))
        {
            self.state = .merging(fetch, status: status, headers: headers, requestTime: requestTime)
            return .mergeNotModified(candidate.entry)
        }
        if status == 206, self.start.keyed == nil {
            return self.relayPartial(fetch, headers: headers, requestTime: requestTime)
        }
        if case .completing = fetch.range, status == 416 {
            // The stored part is of another representation: fetch the whole.
            return self.fetchWhole(fetch)
        }
        return self.relay(fetch, status: status, headers: headers, requestTime: requestTime)
    }

    /// The 304 (or HEAD's 200) was applied: `refreshed` is the entry with its headers and times renewed, nil when
    /// the entry changed meanwhile or the index could not be written.
    mutating func merged(_ refreshed: CachedEntry?) -> Action {
        guard case .merging(let fetch, let status, _, _) = self.state, let validated = self.validating(fetch) else {
            preconditionFailure("not merging")
        }
        var cacheStatus = CacheStatus.forward(fetch.reason, status: status, stored: refreshed != nil)
        cacheStatus.detail = "revalidated"
        self.state = .answering(then: .fetchUnconditionally(fetch))
        return .answerStored(refreshed ?? validated.entry, detail: nil, cacheStatus: cacheStatus, refresh: false)
    }

    /// Upstream could not be reached or failed before a head (`isTimeout`: it timed out).
    mutating func upstreamFailed(isTimeout: Bool, description: String, now: Date) -> Action {
        guard case .fetching(let fetch) = self.state else { preconditionFailure("not fetching") }
        return self.fallBack(fetch.lookup, detail: "upstream-unreachable", reason: description, status: isTimeout ? 504 : 502, now: now)
    }

    /// No head came within the plan's `headTimeout` (the fetch goes on in the background).
    mutating func upstreamTimedOut(now: Date) -> Action {
        guard case .fetching(let fetch) = self.state else { preconditionFailure("not fetching") }
        return self.fallBack(
            fetch.lookup, detail: "network-timeout", reason: "no answer within \(fetch.timeout ?? .zero)", status: 504, now: now)
    }

    /// What ``Action/seekStandInBody`` found: the stored answer to stand in, or nil; `noneNear`
    /// when answers to the read are stored but none has a body near enough (the miss says so).
    mutating func standInSought(_ standIn: StandIn?, noneNear: Bool, now: Date) -> Action {
        guard case .seekingStandIn(var lookup, let detail, let reason, let status) = self.state else {
            preconditionFailure("not seeking a stand-in")
        }
        lookup.standIn = standIn
        self.standInSought = true
        return self.fallBack(
            lookup, detail: standIn == nil && noneNear ? detail + "+body-not-near" : detail, reason: reason, status: status, now: now)
    }

    /// The stored answer was given (or the client went away meanwhile).
    mutating func answered() {
        self.state = .done
    }

    // MARK: - Rules

    /// What ``CacheDecision`` decides from: the strategy, the route's limits, the request's directives.
    private var decisionContext: CacheDecision.Context {
        CacheDecision.Context(
            strategy: self.strategy,
            routeMaxAge: self.start.routeMaxAge,
            networkTimeout: self.start.networkTimeout,
            request: RequestCacheDirectives(
                cacheControl: self.start.request.headers["cache-control"], pragma: self.start.request.headers["pragma"])
        )
    }

    private var isIdle: Bool {
        if case .idle = self.state { true } else { false }
    }

    /// The stored response a fetch validates, when there is one the strategy may use (never for a
    /// keyed request: its copy is not validated, nor served for a 5xx; nor a page kept against its
    /// `no-store`, which a 304 would make the answer online, ``KeptNoStore``).
    private func validating(_ fetch: Fetch) -> Candidate? {
        guard self.strategy != .networkOnly, self.start.keyed == nil, let candidate = fetch.lookup.candidate,
            !candidate.freshness.keptNoStore
        else { return nil }
        return candidate
    }

    /// Sends a cacheable request upstream: the host's back-off first, then coalescing of plain
    /// misses (a range is answered from the full body either way, but only plain misses wait on
    /// another request's), then the fetch.
    private mutating func forward(_ lookup: Lookup, reason: CacheStatus.ForwardReason, timeout: Duration?) -> Action {
        let start = self.start
        // A keyed request with nothing stored is tried even so, as an unkeyed POST would be.
        if start.backingOff, !self.probeAdmitted, start.keyed == nil || lookup.candidate != nil {
            self.state = .probing(lookup, reason: reason, timeout: timeout)
            return .mayProbe
        }
        let fetch = Fetch(lookup: lookup, reason: reason, timeout: timeout, range: self.upstreamRange(lookup))
        let plain = lookup.candidate == nil && start.request.method != .HEAD && !start.request.headers.contains(name: "range")
        guard plain, self.strategy != .networkOnly, start.keyed == nil else {
            return self.fetch(fetch)
        }
        self.state = .joining(fetch)
        return .joinInFlight(mayLead: !ClientConditionals.hasPrecondition(start.request.headers))
    }

    private mutating func fetch(_ fetch: Fetch) -> Action {
        self.state = .fetching(fetch)
        // With a fallback at hand, a slow network must not hold the user up for long.
        return .fetch(UpstreamPlan(validating: self.validating(fetch)?.entry, headTimeout: fetch.timeout, range: fetch.range))
    }

    /// What answers when the origin cannot: the stored copy, else a stand-in, when the route's
    /// offline rule lets it; nil when nothing may. A network-only route answers from the cache
    /// only in offline mode, where the user asked for whatever is there.
    private func disconnectedAnswer(_ lookup: Lookup, now: Date) -> (candidate: Candidate, use: DisconnectedUse, standIn: String?)? {
        // A stored "up" would tell the app its server is up when it is not.
        if self.start.healthCheck { return nil }
        if self.start.keyed != nil {
            // The user asked for this answer to be kept for when the origin cannot give it.
            if let candidate = lookup.candidate { return (candidate, .allowed, nil) }
            return lookup.standIn.map { ($0.candidate, .allowed, $0.reason) }
        }
        let lookup = self.answerable(lookup)
        let rule = self.start.offlineRule
        if let candidate = lookup.candidate {
            let use = CacheDecision.disconnectedUse(
                candidate.freshness, precached: candidate.entry.kind == .precached, rule: rule, now: now)
            return use.mayAnswer ? (candidate, use, nil) : nil
        }
        if lookup.candidate == nil, let partial = self.start.partial, self.partialHolds(partial),
            self.strategy != .networkOnly || self.start.offline
        {
            // A range wholly within the stored part answers as a complete copy would.
            let use = CacheDecision.disconnectedUse(partial.freshness, precached: false, rule: rule, now: now)
            if use.mayAnswer { return (partial, use, nil) }
        }
        if let standIn = lookup.standIn {
            let candidate = standIn.candidate
            let use = CacheDecision.disconnectedUse(
                candidate.freshness, precached: candidate.entry.kind == .precached, rule: rule, now: now)
            return use.mayAnswer ? (candidate, use, standIn.reason) : nil
        }
        return nil
    }

    /// What of the lookup may answer without upstream at all.
    private func answerable(_ lookup: Lookup) -> Lookup {
        guard self.strategy == .networkOnly, !self.start.offline else { return lookup }
        return Lookup(candidate: nil, missReason: lookup.missReason)
    }

    /// Answers without upstream (offline, failing, hung or backing off): what
    /// ``disconnectedAnswer(_:now:)`` finds, else an error page that says why. `reason` nil means
    /// offline mode.
    private mutating func fallBack(_ lookup: Lookup, detail: String, reason: String?, status: Int, now: Date) -> Action {
        // A health check is never answered from the cache: no stand-in is looked for either.
        if self.start.seeksStandInBody, !self.start.healthCheck, !self.standInSought, lookup.candidate == nil {
            self.state = .seekingStandIn(lookup, detail: detail, reason: reason, status: status)
            return .seekStandInBody
        }
        if let answer = self.disconnectedAnswer(lookup, now: now) {
            self.state = .answering(then: .unreadableFallback(detail: detail, reason: reason))
            var detail =
                switch self.start.keyed {
                case .declared: "declared"
                case .preflight: "preflight+" + answer.use.detail(detail)
                case .graphQLQuery: answer.use.detail(detail) + "+graphql-query"
                case .route, nil: answer.use.detail(detail)
                }
            if let standIn = answer.standIn {
                detail += "+\(standIn)"
            }
            return .answerStored(answer.candidate.entry, detail: detail, cacheStatus: nil, refresh: false, disconnected: true)
        }
        let lookup = self.answerable(lookup)
        var unusable: String?
        var status = status
        if let candidate = lookup.candidate,
            case .forbidden(let directive) = CacheDecision.disconnectedUse(
                candidate.freshness, precached: candidate.entry.kind == .precached, rule: self.start.offlineRule, now: now)
        {
            // A strict route (RFC 9111 section 4.2.4): a disconnected cache answers 504 rather than reuse it.
            unusable = "The cached copy may not be served without revalidation (\(directive)), and this route is strict offline."
            status = 504
        }
        self.state = .done
        var detail = detail
        if self.start.declaredWithheld { detail += "+declared-withheld" }
        if self.start.healthCheck {
            detail += "+health-check"
            unusable =
                "This is a health check: Larder never answers it from the cache while the site cannot answer, so the app hears that its server is down."
        }
        let cacheStatus = CacheStatus.forward(lookup.candidate == nil ? lookup.missReason : .stale, detail: detail)
        return .answerPage(.disconnected(status: status, reason: reason, unusable: unusable), cacheStatus: cacheStatus)
    }

    // MARK: - Partial content (RFC 9111 sections 3.3 and 3.4)

    /// The stored part as ``PartialContent``; nil when it is not one Larder keeps.
    private static func part(_ entry: CachedEntry) -> PartialContent? {
        PartialContent(status: entry.status, headers: entry.headers, bodySize: entry.bodySize)
    }

    /// Whether the stored part holds every byte the request asks for.
    private func partialHolds(_ partial: Candidate) -> Bool {
        let entry = partial.entry
        return Self.part(entry)?.answerRange(
            for: self.start.request.headers, isGet: self.start.request.method == .GET, etag: entry.header("etag"),
            lastModified: entry.header("last-modified")) != nil
    }

    /// What the upstream request asks of ranges: with no complete copy, a GET's own range is
    /// forwarded (and its 206 kept as a part), and a GET of the whole with a part stored asks for
    /// the bytes that complete it; otherwise the whole body, which is stored and cut.
    private func upstreamRange(_ lookup: Lookup) -> UpstreamRange {
        let start = self.start
        guard start.keyed == nil, start.request.method == .GET, lookup.candidate == nil else { return .none }
        if start.request.headers.contains(name: "range") { return .client }
        guard let entry = start.partial?.entry, let part = Self.part(entry), let missing = part.missing else { return .none }
        let etag = entry.header("etag").map { $0.trimmingWhitespace() }
        return .completing(
            value: ByteRangeRequest.rangeValue(missing, length: part.length), ifRange: etag.flatMap { $0.hasPrefix("\"") ? $0 : nil })
    }

    /// The request again without asking for a range: the 206 that came cannot complete the part.
    private mutating func fetchWhole(_ fetch: Fetch) -> Action {
        var fetch = fetch
        fetch.range = .none
        return self.fetch(fetch)
    }

    /// Relays a 206: kept as a part when it may be stored (the response's rules, as for a 200),
    /// joined to the stored part when both carry the same strong validator and their bytes touch
    /// (RFC 9110 section 15.3.7.3), stored whole when that completes it. A 206 to a request for
    /// the whole that does not complete the part is dropped for a fetch of the whole.
    private mutating func relayPartial(_ fetch: Fetch, headers: [HeaderField], requestTime: Date) -> Action {
        let start = self.start
        let newer = PartialContent(status: 206, headers: headers, bodySize: headers.contentLength)
        var joining: PartialRelay.Joining?
        if let newer, let entry = start.partial?.entry, let stored = Self.part(entry),
            PartialContent.sameStrongValidator(entry.headers, headers), let combination = stored.combining(newer)
        {
            joining = PartialRelay.Joining(entry: entry, combination: combination)
        }
        let result = joining?.combination.combined ?? newer
        let whole: Bool
        if case .completing = fetch.range {
            guard let result, result.isComplete, joining != nil else { return self.fetchWhole(fetch) }
            whole = true
        } else {
            whole = false
        }
        self.state = .done
        let forwardReason = fetch.reason == .uriMiss ? fetch.lookup.missReason : fetch.reason
        guard let result else {
            return .relay(Relay(forwardReason: forwardReason, storeAs: nil, notStoredReason: "status-206"))
        }
        let storability = Storability.forwarded(
            isHead: false, strategy: self.strategy, request: start.request.headers, status: 200, response: headers)
        var relay = Relay(
            forwardReason: forwardReason, storeAs: nil, notStoredReason: nil,
            partial: PartialRelay(joining: joining, result: result, whole: whole))
        if storability == .storable, AnswerOwner.isPersonal(request: start.request.headers, response: headers) {
            // A part is looked up by key alone, not by owner: a personal one is not kept.
            relay.notStoredReason = "personal-partial"
        } else if storability == .storable {
            let key = result.isComplete ? start.key : start.key.partial
            relay.storeAs = StoreTarget(key: key, url: start.url, requestTime: requestTime, varyValues: [])
        } else if case .notStorable(let reason) = storability {
            relay.notStoredReason = reason
        }
        return .relay(relay)
    }

    private mutating func relay(_ fetch: Fetch, status: Int, headers: [HeaderField], requestTime: Date) -> Action {
        self.state = .done
        let target = Self.storeTarget(
            request: self.start.request,
            owner: self.start.owner,
            strategy: self.strategy,
            url: self.start.url,
            key: self.start.key,
            keyed: self.start.keyed != nil,
            status: status,
            headers: headers,
            requestTime: requestTime,
            keepsNoStore: self.start.keepsNoStore
        )
        let forwardReason = fetch.reason == .uriMiss ? fetch.lookup.missReason : fetch.reason
        // What is stored owned and says no-store can only be kept by the user's choice (KeptNoStore.isKept).
        let kept = target.storeAs.map {
            KeptNoStore.isKept(headers: headers, varyRequestHeaders: $0.varyValues, precached: false, keyed: self.start.keyed != nil)
        }
        return .relay(
            Relay(
                forwardReason: forwardReason, storeAs: target.storeAs, notStoredReason: target.notStoredReason, kept: kept ?? false))
    }

    /// Where (and whether) an upstream answer to a GET or HEAD is stored; for a `keyed` request,
    /// any 2xx, whatever its `Cache-Control` says (the user asked for it to be kept). A personal
    /// answer is stored for `owner` alone (``VaryKey/recordedValues(response:request:owner:personal:)``),
    /// and so is one refused for its `no-store` alone on a site the user chose (`keepsNoStore`,
    /// ``KeptNoStore``).
    static func storeTarget(
        request: HTTPRequestHead,
        owner: AnswerOwner,
        strategy: CachingStrategy,
        url: HTTPURL,
        key: CacheKey,
        keyed: Bool = false,
        status: Int,
        headers: [HeaderField],
        requestTime: Date,
        keepsNoStore: Bool = false
    ) -> (storeAs: StoreTarget?, notStoredReason: String?) {
        if keyed {
            guard (200..<300).contains(status) else { return (nil, "status-\(status)") }
            let values = VaryKey.recordedValues(response: headers, request: request.headers, owner: owner)
            return (StoreTarget(key: VaryKey.storageKey(key, values: values), url: url, requestTime: requestTime, varyValues: values), nil)
        }
        let storability = Storability.forwarded(
            isHead: request.method == .HEAD,
            strategy: strategy,
            request: request.headers,
            status: status,
            response: headers
        )
        if KeptNoStore.keeps(
            isHead: request.method == .HEAD, strategy: strategy, request: request.headers, status: status, response: headers,
            siteChosen: keepsNoStore)
        {
            // The person who saw it alone, whatever credentials the request carried.
            let values = VaryKey.recordedValues(response: headers, request: request.headers, owner: owner, personal: true)
            return (StoreTarget(key: VaryKey.storageKey(key, values: values), url: url, requestTime: requestTime, varyValues: values), nil)
        }
        guard storability == .storable else {
            if case .notStorable(let reason) = storability { return (nil, reason) }
            return (nil, nil)
        }
        let values = VaryKey.recordedValues(response: headers, request: request.headers, owner: owner)
        return (StoreTarget(key: VaryKey.storageKey(key, values: values), url: url, requestTime: requestTime, varyValues: values), nil)
    }

    /// What an upstream answer no client waits for (a background refresh, or an answer slower than
    /// the strategy's timeout) does to the store.
    enum Absorption {
        /// A 304 to the stored copy's validators: that copy's headers and times are renewed.
        case refresh(CachedEntry)
        /// The answer is stored where ``storeTarget(request:owner:strategy:url:key:keyed:status:headers:requestTime:keepsNoStore:)`` says.
        case store(StoreTarget)
        /// Nothing changes: a 5xx (the stored copy stays for when the origin recovers), a method
        /// that is not stored, or an answer that is not storable.
        case leave
    }

    /// The request a background refresh of a stored answer to `request` sends: a GET of the whole
    /// representation (no `Range`), whatever the client asked, since it is fetched to be stored;
    /// the client's other fields stay (``UpstreamRequestPlan`` drops what would still ask for a
    /// part), so the answer is the one that client would get.
    static func backgroundRefresh(of request: HTTPRequestHead) -> HTTPRequestHead {
        var head = request
        head.method = .GET
        head.headers.remove(name: "range")
        return head
    }

    /// What an answer with `status` and `headers`, which no client waits for, does to the store:
    /// a 304 refreshes the copy it validated; a storable answer to a GET (any 2xx to a `keyed`
    /// request) is stored; a 5xx never replaces anything.
    static func absorption(
        request: HTTPRequestHead, owner: AnswerOwner, url: HTTPURL, key: CacheKey, strategy: CachingStrategy, keyed: Bool,
        validating: CachedEntry?, status: Int, headers: [HeaderField], requestTime: Date, keepsNoStore: Bool = false
    ) -> Absorption {
        if status == 304 {
            return validating.map { .refresh($0) } ?? .leave
        }
        guard request.method == .GET || keyed, status < 500,
            let target = Self.storeTarget(
                request: request, owner: owner, strategy: strategy, url: url, key: key, keyed: keyed, status: status, headers: headers,
                requestTime: requestTime, keepsNoStore: keepsNoStore
            ).storeAs
        else { return .leave }
        return .store(target)
    }

    /// The strategy a request is served by: network-only when it may not have the stored answer
    /// at all (`mayUseStore` false: a declared GET's answer is the user's, docs/SERVING.md); a
    /// request keyed by its body network-first; else the route's (`routeStrategy`), else the
    /// default (``defaultStrategy(for:entry:declared:)``), with `declaredGet` (a declared GET asks
    /// for the key now) making a precached answer network-first.
    static func strategy(
        url: HTTPURL, candidate: CachedEntry?, routeStrategy: CachingStrategy?, keyed: Bool, mayUseStore: Bool, declaredGet: Bool
    ) -> CachingStrategy {
        guard mayUseStore else { return .networkOnly }
        if keyed { return .networkFirst }
        return routeStrategy
            ?? Self.defaultStrategy(for: url, entry: candidate, declared: candidate?.kind == .precached && declaredGet)
    }

    /// The strategy for a URL no configured route covers (docs/SERVING.md): precached assets
    /// cache-first; precached pages and data (by URL, or stored as HTML or JSON, so `/lab` and an
    /// API call added to precache count) and declared requests' answers (`declared`: kept fresh
    /// because they change) network-first, so the origin's cookies, new deploys and today's data
    /// reach the browser while it answers; everything else the HTTP cache.
    static func defaultStrategy(for url: HTTPURL, entry: CachedEntry?, declared: Bool = false) -> CachingStrategy {
        guard let entry, entry.kind == .precached else { return .http }
        return declared || url.isNetworkFirstWhenPrecached || entry.isPageOrData ? .networkFirst : .cacheFirst
    }
}
