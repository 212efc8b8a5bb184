import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOFileSystem
import NIOHTTP1

/// Serves absolute-form requests for other hosts: GET and HEAD through the cache by the strategy in
/// force (an RFC 9111 private cache by default), storing what may be stored as it streams to the
/// client, and answering from the cache when upstream fails, the host is backing off, or the proxy
/// is offline.
final class ForwardProxy: Sendable {
    let store: Store
    /// The origins' upstream, recording what each exchange shows of its origin's health
    /// (``HealthRecordingUpstream``).
    let upstream: any Upstream
    let health: UpstreamHealthRegistry
    let offline: OfflineSwitch
    let configuration: ProxyConfiguration
    let usage: UsageRecorder
    let budget: StoreBudget
    /// Responses that could not be stored, for the log and /dev/offline.
    let storeFailures: StoreWriteFailures
    let logger: Logger
    /// Upstream fetches of misses in flight, shared by concurrent requests for one key.
    let inFlight = InFlightFetches()
    /// Answers sent whole whose commit is under way, which requests for their key wait for.
    let committing = CommittingAnswers()
    /// Keys being refreshed in the background, so one refresh at a time runs per key.
    let backgroundRefreshes = BackgroundRefreshes()
    /// Small bodies kept in memory by content hash.
    let smallBodies: SmallBodyCache
    /// Freshness of recently served stored heads.
    let freshnessMemo: FreshnessMemo
    /// Removes what successful unsafe methods made invalid.
    var invalidator: CacheInvalidator {
        CacheInvalidator(store: self.store, committing: self.committing, queryFilter: self.configuration.queryFilter, logger: self.logger)
    }
    /// Runs what outlives a request: background refreshes, answers that came after a timeout.
    let background: BackgroundWork
    /// Where offline misses go (the app's, or the browser's own).
    let offlineMissLog: OfflineMissLog
    /// Which requests are the app's and which the browser's own.
    let appOrigins: AppOriginRegistry
    /// The CORS grants origins gave page origins, for Larder's answers in their place.
    let corsGrants: CORSGrants
    /// The app's own bodies of declared GraphQL requests.
    let learnedQueries: LearnedQueries
    /// The declared requests' token values, which URLs Larder shows or logs carry only as their
    /// placeholders (docs/SERVING.md, "What is private and where it is kept").
    let shownSecrets: SubstitutedSecrets

    /// A proxy serving `configuration` (as assembled: ``ProxyConfiguration/keepingUserChoices(in:logger:)``)
    /// over `store`, with the `registries` the assembly made.
    init(
        store: Store,
        upstream: any Upstream,
        health: UpstreamHealthRegistry,
        offline: OfflineSwitch,
        configuration: ProxyConfiguration,
        registries: ProxyRegistries,
        usage: UsageRecorder,
        budget: StoreBudget,
        background: BackgroundWork,
        logger: Logger
    ) {
        self.background = background
        self.store = store
        self.usage = usage
        self.budget = budget
        self.upstream = upstream
        self.health = health
        self.offline = offline
        self.configuration = configuration
        self.logger = logger
        self.storeFailures = registries.storeFailures
        self.smallBodies = registries.smallBodies
        self.freshnessMemo = registries.freshnessMemo
        self.offlineMissLog = registries.offlineMissLog(now: configuration.now)
        self.appOrigins = registries.appOrigins
        self.corsGrants = registries.corsGrants
        self.learnedQueries = registries.learnedQueries
        self.shownSecrets = registries.shownSecrets
    }

    /// What happened to one request, for logs and for whether the connection may be reused.
    struct Outcome: Sendable {
        var status: Int
        var cacheStatus: CacheStatus?
        /// False when the response could not be completed (the connection must close).
        var reusable: Bool
    }

    // MARK: - GET and HEAD through the cache

    /// Serves a GET or HEAD without a request body, or a `keyed` request (docs/SERVING.md,
    /// "Requests with bodies"): runs a ``CacheTransaction`` to its answer, doing the I/O each of
    /// its actions asks for. `client` says where the request comes from, for personal answers
    /// (``AnswerOwner``).
    func serveCacheable(
        _ head: HTTPRequestHead, url: HTTPURL, client: AnswerOwner.Client, writer: ResponseWriter, keyed: KeyedServing? = nil
    ) async throws -> Outcome {
        let owner = AnswerOwner(client: client, request: head.headers, url: url)
        let key = keyed?.key ?? CacheKey(url: url, filter: self.configuration.queryFilter)
        let route = self.configuration.route(for: keyed?.request.urlKey ?? key)
        if let commit = self.committing.flight(for: key) {
            // The answer before this one (the client's previous request, say) is being stored.
            _ = await commit.wait(stallTimeout: .seconds(5))
        }
        let now = self.configuration.now()
        // A declared GET's answer is the user's (docs/SERVING.md, "Declared answers are the
        // user's"): a request that may not have it is neither answered from the cache nor stored,
        // so it cannot replace the user's copy either.
        var access: DeclaredAnswerAccess? = keyed?.access ?? .open
        let declaredGet = keyed == nil ? self.configuration.declaredGet(key, now: now) : nil
        if let declaredGet {
            access = self.configuration.access(to: declaredGet, headers: head.headers, client: client, now: now)
        }
        var lookup = access == nil ? CacheTransaction.Lookup.miss : await self.lookup(key, request: head, owner: owner)
        var partial: CacheTransaction.Candidate?
        if lookup.candidate == nil, keyed == nil, access != nil {
            lookup.standIn = await self.standIn(
                for: key, url: url, request: head, owner: owner, match: route?.offlineMatch ?? .ignoreCacheBusters)
            if head.method == .GET {
                partial = await self.partialLookup(key)
            }
        }
        var transaction = CacheTransaction(
            CacheTransaction.Start(
                request: head,
                owner: owner,
                url: url,
                key: key,
                lookup: lookup,
                routeStrategy: route?.strategy,
                routeMaxAge: route?.maxAge,
                networkTimeout: route?.networkTimeout ?? self.configuration.networkTimeout,
                offlineRule: route?.offline ?? .relaxed,
                offline: self.offline.isOffline,
                backingOff: !self.health.shouldAttempt(origin: url.origin, now: now),
                now: now,
                keyed: keyed?.request.reason,
                partial: partial,
                seeksStandInBody: keyed.map(Self.mayStandIn) ?? false,
                keepsNoStore: keyed == nil && self.configuration.keptNoStore?.keeps(origin: url.origin) == true,
                healthCheck: self.configuration.healthChecks.matches(url),
                declaredGet: declaredGet != nil,
                declaredWithheld: declaredGet != nil && access == nil
            )
        )
        // Followers of a fetch this request leads are woken whatever happens: a failed fetch, a
        // client gone mid-body.
        var leading: Flight?
        var stored = false
        defer {
            if let leading { self.inFlight.finish(key, flight: leading, stored: stored) }
        }
        var response: UpstreamResponse?
        let strategy = transaction.strategy
        let keepsNoStore = transaction.start.keepsNoStore
        var action = transaction.begin()
        while true {
            switch action {
            case .answerStored(let entry, let detail, let cacheStatus, let refresh, let disconnected):
                guard
                    let outcome = try await self.serveCached(
                        entry, request: head, writer: writer, detail: detail, now: self.configuration.now(), cacheStatus: cacheStatus,
                        disconnected: disconnected, access: access ?? .open)
                else {
                    action = transaction.storedAnswerFailed()
                    continue
                }
                transaction.answered()
                if refresh {
                    self.refreshInBackground(key: key, url: url, request: head, owner: owner, reach: self.reach(for: client), entry: entry)
                }
                return outcome
            case .answerPage(let page, let cacheStatus):
                if let preflight = keyed?.preflight,
                    let answered = try await self.answerPreflightForListedPage(
                        preflight, url: url, cacheStatus: cacheStatus, writer: writer)
                {
                    return answered
                }
                self.offlineMissLog.record(
                    head, url: url, cacheStatus: cacheStatus, declaredRequest: access == nil ? declaredGet?.name : nil)
                var page = Self.statusPage(page, url: url)
                if let declaredGet, access == nil {
                    page.paragraphs.append(
                        StatusPage.declaredWithheld(declaredGet.name, pageOrigin: DeclaredAnswerAccess.pageOrigin(of: head.headers)))
                }
                try await writer.page(
                    page, cacheStatus: cacheStatus, close: false, isHead: head.method == .HEAD,
                    extraHeaders: await self.corsFieldsInOriginsPlace(head, url: url))
                return Outcome(status: Int(page.status.code), cacheStatus: cacheStatus, reusable: true)
            case .mayProbe:
                let now = self.configuration.now()
                action = transaction.probeAnswered(admitted: self.health.admit(origin: url.origin, now: now), now: now)
            case .joinInFlight(let mayLead):
                switch self.inFlight.join(key, mayLead: mayLead) {
                case .leader(let flight):
                    leading = flight
                    action = transaction.lead()
                case .alone:
                    action = transaction.lead()
                case .follower(let flight, let joinedAfterAnswerBegan):
                    var shared: CacheTransaction.Candidate?
                    if await flight.wait(stallTimeout: self.configuration.idleTimeout) {
                        shared = await self.lookup(key, request: head, owner: owner).candidate
                    }
                    action = transaction.followerWoke(
                        shared, joinedAfterAnswerBegan: joinedAfterAnswerBegan, now: self.configuration.now())
                }
            case .fetch(let plan):
                // A 206 that could not complete the stored part is dropped (its transfer cancelled).
                response = nil
                let requestTime = self.configuration.now()
                do {
                    let request = self.upstreamRequest(
                        head, url: url, validating: plan.validating, keyed: keyed, range: plan.range, reach: self.reach(for: client))
                    let result = try await self.relayingInterim(request, client: head, writer: writer) { request in
                        try await self.fetch(
                            request,
                            headTimeout: plan.headTimeout,
                            late: { late in
                                await self.absorb(
                                    late, request: head, owner: owner, url: url, key: key, strategy: strategy, keyed: keyed != nil,
                                    validating: plan.validating, requestTime: requestTime, keepsNoStore: keepsNoStore)
                            })
                    }
                    switch result {
                    case .response(let answer):
                        leading?.answerBegan()
                        response = answer
                        let headers = answer.head.headers
                        action = transaction.upstreamAnswered(
                            status: answer.head.status, headers: headers, requestTime: requestTime, now: self.configuration.now())
                    case .timedOut:
                        action = transaction.upstreamTimedOut(now: self.configuration.now())
                    }
                } catch let error as UpstreamError where error.kind == .forbiddenAddress {
                    // Not an origin that could not answer: no stored copy stands in for it.
                    return try await self.refuseForbiddenAddress(error, head: head, writer: writer, close: false)
                } catch let error as UpstreamError {
                    action = transaction.upstreamFailed(
                        isTimeout: error.kind == .timeout || error.kind == .connectTimeout, description: error.description,
                        now: self.configuration.now())
                }
            case .seekStandInBody:
                guard let keyed else { preconditionFailure("a stand-in body is sought for a keyed read") }
                let found = await self.standInBody(for: keyed, request: head, owner: owner)
                action = transaction.standInSought(found.standIn, noneNear: found.noneNear, now: self.configuration.now())
            case .mergeNotModified(let entry):
                guard let response else { preconditionFailure("a merge follows an answer") }
                action = transaction.merged(await self.refresh(entry, with: response, requestTime: self.configuration.now()))
            case .relay(var relay):
                guard let response else { preconditionFailure("a relay follows an answer") }
                self.noteNoStore(relay, request: head, url: url)
                // Asked only of a fetch over a precached copy (never on a hit): the store would
                // refuse the answer anyway, and Cache-Status and followers must not count on it.
                if relay.storeAs != nil, transaction.start.lookup.candidate?.entry.kind == .precached,
                    (try? await self.store.isHeldByCompleteVersion(key)) == true
                {
                    relay.keepingCompleteVersion()
                }
                var progress: (@Sendable (Bool) -> Void)?
                var storesForOthers: (@Sendable () -> Bool)?
                if let leading {
                    let inFlight = self.inFlight
                    // Followers wait while the answer comes and is stored; once it will not be
                    // stored (no-store, over the entry limit), they are let go at once.
                    progress = { storing in
                        if storing {
                            leading.progressed()
                        } else {
                            inFlight.finish(key, flight: leading, stored: false)
                        }
                    }
                    storesForOthers = { leading.hasFollowers }
                }
                let outcome = try await self.relay(
                    response, request: head, writer: writer, relay: relay, committing: key, progress: progress,
                    storesForOthers: storesForOthers)
                stored = outcome.cacheStatus?.stored == true
                if stored, let keyed, transaction.start.seeksStandInBody {
                    await self.keepRequestBody(of: keyed, request: head)
                }
                return outcome
            }
        }
    }

    /// The page for an answer without a stored body.
    static func statusPage(_ page: CacheTransaction.Page, url: HTTPURL) -> StatusPage {
        switch page {
        case .notCached(let detail):
            return StatusPage(
                status: .gatewayTimeout,
                title: "Not cached",
                paragraphs: ["The request may only be answered from the cache (\(detail)), and Larder has no copy it may use."],
                url: url.absoluteString
            )
        case .disconnected(let status, let reason?, let unusable):
            return StatusPage.upstreamFailure(
                url: url.absoluteString, status: HTTPResponseStatus(statusCode: status), reason: reason, cachedButUnusable: unusable)
        case .disconnected(_, nil, let unusable?):
            return StatusPage.upstreamFailure(
                url: url.absoluteString, status: .gatewayTimeout, reason: "Larder is in offline mode.", cachedButUnusable: unusable)
        case .disconnected(_, nil, nil):
            return .offlineMiss(url: url.absoluteString)
        }
    }

    /// The upstream request for a GET or HEAD: the client's end-to-end headers, with the range
    /// the transaction asks for (by default none: the full body is fetched so that it can be
    /// stored), and with Larder's own validators when it validates a stored copy. A `keyed`
    /// request keeps its method and sends its body, if it has one. `reach` is the client's
    /// (``reach(for:)``).
    func upstreamRequest(
        _ head: HTTPRequestHead, url: HTTPURL, validating: CachedEntry?, keyed: KeyedServing? = nil,
        range: UpstreamRequestPlan.Range = .none, reach: UpstreamReach?
    ) -> UpstreamRequest {
        let fields = UpstreamRequestPlan.fields(
            client: head.headers.fields, range: range,
            validators: validating.map { (etag: $0.header("etag"), lastModified: $0.header("last-modified")) })
        var request = UpstreamRequest(method: head.method == .HEAD ? "HEAD" : "GET", url: url.absoluteString, headers: fields)
        if let keyed {
            request.method = head.method.wireName
            request.body = keyed.body.map { .bytes($0) }
        }
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        request.reach = reach
        return request
    }

    /// Answers a request refused for its address (``UpstreamError/Kind/forbiddenAddress``: a client
    /// on another machine asking for a name that resolves to the box's own loopback) with a `403`
    /// page saying so: not an offline miss, never a stored copy.
    func refuseForbiddenAddress(_ error: UpstreamError, head: HTTPRequestHead, writer: ResponseWriter, close: Bool) async throws
        -> Outcome
    {
        let status = CacheStatus.forward(.method, detail: "forbidden-address")
        try await writer.page(.refusal(.forbidden, reason: error.message), cacheStatus: status, close: close, isHead: head.method == .HEAD)
        return Outcome(status: 403, cacheStatus: status, reusable: !close)
    }

    /// What `client` may make Larder reach: anything from the box's own loopback, else not the
    /// box's own addresses but those the config lists (docs/SERVING.md, "A shared box (LAN mode)").
    func reach(for client: AnswerOwner.Client) -> UpstreamReach? {
        self.configuration.lanReach.forClient(onLoopback: client == .local)
    }

    /// Applies a 304 to the stored entry (headers merged, times renewed, body kept); nil when the
    /// entry changed meanwhile or the index cannot be written.
    func refresh(_ entry: CachedEntry, with response: UpstreamResponse, requestTime: Date) async -> CachedEntry? {
        let fields = response.head.headers
        let headers = NotModifiedMerge.merge(stored: entry.headers, notModified: HopByHopHeaders.removing(from: fields))
        let responseTime = self.configuration.now()
        do {
            return try await self.store.refreshHead(
                key: entry.key, bodyHash: entry.bodyHash, headers: headers, requestTime: requestTime, responseTime: responseTime)
        } catch {
            self.logger.warning("cannot refresh a revalidated entry", metadata: ["key": "\(entry.key)", "error": "\(error)"])
            return nil
        }
    }

    // MARK: - The cache's side

    /// The stored response that answers `request`, with its freshness, or why none does.
    func lookup(_ key: CacheKey, request: HTTPRequestHead, owner: AnswerOwner) async -> CacheTransaction.Lookup {
        let candidates: [CachedEntry]
        do {
            candidates = try await self.store.variants(of: key)
        } catch {
            self.logger.error("cache lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return .miss
        }
        guard !candidates.isEmpty else { return .miss }
        guard let entry = candidates.selected(for: request.headers, owner: owner) else {
            return CacheTransaction.Lookup(candidate: nil, missReason: .varyMiss)
        }
        return CacheTransaction.Lookup(candidate: .init(entry: entry, freshness: self.freshness(of: entry)), missReason: .uriMiss)
    }

    /// The partial response stored for `key` (``CacheKey/partial``), when it is one Larder keeps.
    private func partialLookup(_ key: CacheKey) async -> CacheTransaction.Candidate? {
        do {
            guard let entry = try await self.store.entry(for: key.partial),
                PartialContent(status: entry.status, headers: entry.headers, bodySize: entry.bodySize) != nil
            else {
                return nil
            }
            return CacheTransaction.Candidate(entry: entry, freshness: self.freshness(of: entry))
        } catch {
            self.logger.error("cache lookup failed", metadata: ["key": "\(key.partial)", "error": "\(error)"])
            return nil
        }
    }

    /// What may stand in for a request with nothing stored of its own, should the origin not
    /// answer: the newest response for the same path whose query `match` accepts, else, for a
    /// navigation, the app shell declared for its origin (``NavigationFallback``).
    private func standIn(
        for key: CacheKey, url: HTTPURL, request: HTTPRequestHead, owner: AnswerOwner, match: OfflineMatch
    ) async -> CacheTransaction.StandIn? {
        if match != .exact {
            do {
                // The newest few are enough: a path stored under hundreds of queries answers with
                // one of its recent ones, at the same cost for any cache size.
                for entry in try await self.store.entries(withBase: key.base, limit: 16)
                where match.accepts(entry.key, for: key) && entry.isSelected(for: request.headers, owner: owner) {
                    return CacheTransaction.StandIn(
                        candidate: .init(entry: entry, freshness: self.freshness(of: entry)), reason: "query-ignored")
                }
            } catch {
                self.logger.error("cache lookup failed", metadata: ["base": "\(key.base)", "error": "\(error)"])
            }
        }
        guard NavigationFallback.isNavigation(request.headers),
            let fallback = self.configuration.navigationFallback(for: url, key: key)
        else {
            return nil
        }
        let shell = CacheKey(url: fallback.shell, filter: self.configuration.queryFilter)
        guard shell != key, let candidate = await self.lookup(shell, request: request, owner: owner).candidate else { return nil }
        return CacheTransaction.StandIn(candidate: candidate, reason: "navigation-fallback")
    }

    /// The stored response's freshness (RFC 9111 section 4.2), computed once per stored head.
    func freshness(of entry: CachedEntry) -> ResponseFreshness {
        self.freshnessMemo.freshness(of: entry)
    }

    // MARK: - Helpers

    /// The outcome of waiting for a response head at most some time.
    enum FetchResult: Sendable {
        case response(UpstreamResponse)
        /// The head did not come in time; the request goes on in the background.
        case timedOut
    }

    /// Sends the request and waits for the response head, at most `headTimeout` when given. On a
    /// timeout (or when this task is cancelled) the request goes on as background work, whose
    /// answer goes to `late`; how it ends still counts for its origin's back-off (``upstream``
    /// records it), so an origin that drops connections backs off even when every client was
    /// answered from the cache meanwhile.
    private func fetch(
        _ request: UpstreamRequest,
        headTimeout: Duration?,
        late: @escaping @Sendable (UpstreamResponse) async -> Void
    ) async throws -> FetchResult {
        let upstream = self.upstream
        guard let headTimeout else {
            return .response(try await upstream.execute(request))
        }
        let handOff = HandOff<Result<UpstreamResponse, any Error>>()
        let logger = self.logger
        self.background.submit {
            let result: Result<UpstreamResponse, any Error>
            do {
                result = .success(try await upstream.execute(request))
            } catch {
                result = .failure(error)
            }
            switch handOff.deliver(result) {
            case nil:
                break
            case .success(let response)?:
                await late(response)
            case .failure(let error)?:
                logger.debug("late answer failed", metadata: ["url": "\(request.url)", "error": "\(error)"])
            }
        }
        guard let result = await handOff.take(within: headTimeout) else { return .timedOut }
        return .response(try result.get())
    }
}
