import CoreMetrics
import LarderDeclaredRequests
import LarderHTTP
import LarderIntrospection
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Larder's proxy as a service: listens, serves each connection, and on graceful shutdown
/// stops accepting, lets in-flight responses finish, and closes idle connections.
///
/// An app embeds it through `Larder` (LarderEmbedded), whose start
/// (Sources/LarderEmbedded/RunningLarder.swift) assembles it as `larder serve` does: in a
/// `ServiceGroup` with a `Store` on a cache directory, an `Upstream` (normally `CurlUpstream`) and
/// an `UpstreamConnector` for tunnels and WebSockets (both with the same `UpstreamTrust`), a
/// ``BackgroundWork``, and the precache job queue (`PrecacheJobs` of LarderPrecache), made on the
/// upstream the proxy counts failures of. The group's services, in
/// order: `StoreService`, the upstream's service, the precache jobs' own upstream's service (when
/// they have one), then the server's own ``services``; it stops them in reverse order.
public final class ProxyServer: Service, Sendable {
    private let core: ServingCore
    /// The parts ``core`` holds, by the names the server uses.
    private var configuration: ProxyConfiguration { self.core.configuration }
    private var registries: ProxyRegistries { self.core.registries }
    private var proxy: ForwardProxy { self.core.proxy }
    private var usage: UsageRecorder { self.core.usage }
    private var budget: StoreBudget { self.core.budget }
    private let group: any EventLoopGroup
    private let logger: Logger
    private let onListening: @Sendable (SocketAddress) -> Void
    private let boundAddress = Mutex<SocketAddress?>(nil)
    private let interception: Interception?
    private let connector: HealthRecordingConnector
    private let store: Store
    private let pages: (@Sendable (any ProxyIntrospection) throws -> any OwnPageResponder)?

    /// The switch for offline mode, shared with whatever controls it.
    public let offline: OfflineSwitch
    /// Upstream health per host.
    public let health: UpstreamHealthRegistry

    /// Precache jobs started through `POST /dev/offline/precache`.
    public let precacheJobs: any PrecacheJobQueue
    /// Work that outlives the request that started it. Not run by the server: part of
    /// ``services``, so that it finishes once the server has stopped, and before the upstream and
    /// store stop.
    public let background: BackgroundWork
    /// Answers by outcome and the most recent requests.
    public let statistics: ProxyStatistics
    /// Keeps the configuration's declared requests fresh (it does nothing without any). Not run
    /// by the server: part of ``services``.
    public let declaredRequests: DeclaredRequestScheduler
    /// Replays the writes queued while their origin could not answer (with nothing queued it looks
    /// at the queue once a second). Not run by the server: part of ``services``.
    public let writeReplayer: WriteReplayer
    /// Everything the server needs running, in the order a `ServiceGroup` starts them (it stops
    /// them in reverse): the ``background`` work, the ``declaredRequests``, the
    /// ``writeReplayer``, the ``jobs``, and the server itself last. Every assembly runs this one
    /// list: `larder serve` and `LarderEmbedded` after the store and the upstream, the in-process
    /// test harness (Tests/LarderProxyTests/InProcess/InProcessProxy.swift) likewise.
    public var services: [any Service] {
        [self.background, self.declaredRequests, self.writeReplayer] + self.jobs + [self]
    }

    /// The server's own long-lived jobs, as services: last-use batching, eviction, the precache
    /// jobs started on /dev/offline, and the sweep of what a crash left in the cache directory
    /// (once the server listens, at low priority). Not run by the server: part of ``services``.
    public var jobs: [any Service] {
        [
            ProxyJob(name: "last uses") { await self.usage.run() },
            ProxyJob(name: "eviction") { await self.budget.run() },
            ProxyJob(name: "precache jobs") { await self.precacheJobs.run() },
            ProxyJob(name: "leftovers") {
                // Once the server listens: a look every 50 ms while it starts.
                while self.listeningAddress == nil {
                    guard (try? await Task.sleep(for: .milliseconds(50))) != nil else { return }
                }
                await Task(priority: .background) {
                    do {
                        try await self.store.removeLeftovers()
                    } catch {
                        self.logger.warning("cannot remove leftovers of an interrupted run", metadata: ["error": "\(error)"])
                    }
                }.value
            },
        ]
    }

    /// Creates a server; nothing listens until `run()`. `precacheJobs` is given the upstream its
    /// jobs fetch through (`precacheUpstream` when there is one, else the proxy's own) and how busy
    /// the clients are, for the jobs to yield to them. `metrics` makes the counters of upstream
    /// failures and write replays (``ProxyMetrics``; by default nothing is counted). `pages` makes,
    /// once the server listens, from what it shows of itself (``ServerIntrospection``), the pages
    /// another module serves at its address (LarderDevOffline's /dev/offline and /metrics:
    /// `DevOfflinePages`); without it those paths are not found.
    public init(
        configuration: ProxyConfiguration,
        store: Store,
        upstream: any Upstream,
        connector: UpstreamConnector,
        background: BackgroundWork,
        precacheUpstream: (any Upstream)? = nil,
        precacheJobs: (any Upstream, ClientActivity) -> any PrecacheJobQueue,
        interception: Interception? = nil,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        pages: (@Sendable (any ProxyIntrospection) throws -> any OwnPageResponder)? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "larder.proxy"),
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) {
        let metrics = ProxyMetrics(factory: metrics)
        // Upstream failures are counted for /metrics, for the proxy and the precache jobs alike.
        let upstream = FailureCountingUpstream(base: upstream, metrics: metrics)
        // The parts that answer requests, made as the benchmarks' and the tests' are: one
        // configuration, one set of registries, handed to those that use them.
        let core = ServingCore(store: store, upstream: upstream, configuration: configuration, background: background, logger: logger)
        self.core = core
        self.store = store
        self.pages = pages
        self.offline = core.offline
        self.health = core.health
        let recorded = core.upstream
        self.statistics = ProxyStatistics(startedAt: core.configuration.now())
        // Precache jobs fetch through their own client when given one (a low-priority one, so
        // that their transfers yield to the proxy's).
        self.precacheJobs = precacheJobs(
            precacheUpstream.map { FailureCountingUpstream(base: $0, metrics: metrics) } ?? upstream,
            ClientActivity(statistics: self.statistics)
        )
        self.declaredRequests = DeclaredRequestScheduler(
            requests: core.configuration.declaredRequests,
            runner: DeclaredRequestRunner(
                store: store,
                upstream: HealthRecordingUpstream(base: upstream, health: self.health, rule: .declaredRequest),
                queryFilter: core.configuration.queryFilter,
                connectTimeout: core.configuration.connectTimeout,
                idleTimeout: core.configuration.idleTimeout,
                now: core.configuration.now,
                logger: logger
            ),
            health: self.health,
            offline: self.offline,
            now: core.configuration.now,
            logger: logger
        )
        self.writeReplayer = WriteReplayer(
            store: store, upstream: recorded, configuration: core.configuration, offline: self.offline, health: self.health,
            invalidator: core.proxy.invalidator, metrics: metrics, logger: logger)
        self.interception = interception
        self.connector = HealthRecordingConnector(base: connector, health: self.health)
        self.background = background
        self.group = group
        self.logger = logger
        self.onListening = onListening
    }

    /// Set when precached entries alone exceed `--max-size` (they are kept; runtime entries get no
    /// space), for pages to show; nil otherwise.
    public var budgetWarning: String? {
        self.budget.warning
    }

    /// The address the server listens on, once it does.
    public var listeningAddress: SocketAddress? {
        self.boundAddress.withLock { $0 }
    }

    /// Listens and serves until graceful shutdown or cancellation.
    public func run() async throws {
        let preparedHits = PreparedHits()
        let requestLog = RequestLog(
            statistics: self.statistics, logger: self.logger, now: self.configuration.now, secrets: self.registries.shownSecrets)
        let registry = ConnectionRegistry()
        let limits = self.configuration.clientLimits
        let counts = ConnectionCounts(
            total: limits.maximumConnections ?? ClientLimits.defaultMaximumConnections(descriptorLimit: DescriptorLimit.current),
            perClient: limits.maximumConnectionsPerClient
        )
        let server = try await ServerBootstrap(group: self.group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: self.configuration.host, port: self.configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture { () -> AcceptedConnection? in
                    let operations = channel.pipeline.syncOperations
                    let remote = channel.remoteAddress
                    // Clients outside the allow list, and clients over the limits, are answered at
                    // once and never read: they hold no socket for long.
                    guard self.configuration.allowList.allows(remote) else {
                        let reason =
                            "Larder does not serve \(remote.map { "\($0)" } ?? "this client"); start it with --allow CIDR to let other addresses in."
                        try operations.addHandler(ClientRefusal(status: "403 Forbidden", reason: reason))
                        return nil
                    }
                    let lifecycle: ConnectionLifecycle
                    switch registry.admit(channel, client: remote?.ipAddress ?? "local", limits: counts) {
                    case .refused(let reason):
                        self.logger.warning(
                            "connection refused", metadata: ["client": "\(remote.map { "\($0)" } ?? "?")", "reason": "\(reason)"])
                        try operations.addHandler(
                            ClientRefusal(status: "503 Service Unavailable", reason: "Too many connections: \(reason)."))
                        return nil
                    case .admitted(let admitted):
                        lifecycle = admitted
                    }
                    channel.closeFuture.whenComplete { _ in registry.remove(lifecycle) }
                    try operations.addHandler(ClientTimeouts(limits: limits, lifecycle: lifecycle))
                    var encoderConfiguration = HTTPResponseEncoder.Configuration()
                    // Larder frames every response itself (it knows HEAD and tunnel answers).
                    encoderConfiguration.automaticallySetFramingHeaders = false
                    try operations.addHandler(HTTPResponseEncoder(configuration: encoderConfiguration), name: "http-encoder")
                    try operations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)),
                        name: "http-decoder"
                    )
                    // Plain hits are answered on the event loop.
                    let immediateHits = self.core.immediateHits(
                        own: RequestRoute.OwnAuthorities(
                            port: channel.localAddress?.port ?? self.configuration.port,
                            listenHost: self.configuration.host,
                            localAddress: channel.localAddress?.ipAddress
                        ),
                        rules: self.configuration.routeRules,
                        reach: self.configuration.lanReach.forClient(onLoopback: channel.remoteAddress.map(CIDR.isLoopback) == true),
                        log: requestLog,
                        prepared: preparedHits
                    )
                    try operations.addHandler(
                        ProxyChannelAdapter(
                            decoderName: "http-decoder",
                            encoderName: "http-encoder",
                            immediateHits: self.configuration.immediateHits ? immediateHits : nil
                        )
                    )
                    let asyncChannel = try NIOAsyncChannel<ProxyInbound, ProxyOutbound>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(
                            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8),
                            isOutboundHalfClosureEnabled: true
                        )
                    )
                    return AcceptedConnection(channel: asyncChannel, lifecycle: lifecycle)
                }
            }
        guard let address = server.channel.localAddress, let port = address.port else {
            throw ProxyServerError(description: "the listening socket has no address")
        }
        self.boundAddress.withLock { $0 = address }
        self.logger.notice("listening", metadata: ["address": "\(address)"])
        self.onListening(address)

        let authority = address.ipAddress.map { "\(HTTPURL.bracketed(host: $0)):\(port)" } ?? "127.0.0.1:\(port)"
        let ownOrigins = Set(["127.0.0.1", "localhost", "[::1]"].map { "http://\($0):\(port)" } + ["http://\(authority)"])
        let pageJobs = PageJobLimit(
            limit: PagePrecacheLimit(budget: self.configuration.maxSize), jobs: self.precacheJobs,
            now: self.configuration.now)
        let introspection = ServerIntrospection(
            configuration: self.configuration,
            store: self.store,
            statistics: self.statistics,
            health: self.health,
            offline: self.offline,
            precacheJobs: self.precacheJobs,
            pageJobs: pageJobs,
            storeFailures: self.registries.storeFailures,
            offlineMisses: self.registries.offlineMisses,
            browserMisses: self.registries.browserMisses,
            appOrigins: self.registries.appOrigins,
            declaredRequests: self.declaredRequests,
            writeReplayer: self.writeReplayer,
            secrets: self.registries.shownSecrets,
            ownOrigins: ownOrigins
        )
        let pages = OwnPages(
            proxyAuthority: authority,
            precache: PrecacheAPI(
                jobs: self.precacheJobs, store: self.store, ownOrigins: ownOrigins, lanReach: self.configuration.lanReach,
                pageJobs: pageJobs),
            responder: try self.pages?(introspection),
            caCertificatePEM: try self.interception?.certificates.authority.pem()
        )
        try await withGracefulShutdownHandler {
            try await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await accepted in connections {
                        guard let accepted else { continue }
                        let connection = accepted.channel
                        let handler = ProxyConnection(
                            channel: connection,
                            forward: self.proxy,
                            configuration: self.configuration,
                            offline: self.offline,
                            health: self.health,
                            offlineMissLog: self.registries.offlineMissLog(now: self.configuration.now),
                            appOrigins: self.registries.appOrigins,
                            learnedQueries: self.registries.learnedQueries,
                            secrets: self.registries.shownSecrets,
                            own: RequestRoute.OwnAuthorities(
                                port: port,
                                listenHost: self.configuration.host,
                                localAddress: connection.channel.localAddress?.ipAddress
                            ),
                            rules: self.configuration.routeRules,
                            pages: pages,
                            lifecycle: accepted.lifecycle,
                            interception: self.interception,
                            connector: self.connector,
                            requestLog: requestLog,
                            logger: self.logger
                        )
                        group.addTask {
                            await handler.run()
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            self.logger.notice("shutting down: finishing in-flight responses")
            server.channel.close(promise: nil)
            registry.shutdown()
        }
    }
}

/// A client connection the server serves: its async channel and its bookkeeping.
struct AcceptedConnection: Sendable {
    var channel: NIOAsyncChannel<ProxyInbound, ProxyOutbound>
    var lifecycle: ConnectionLifecycle
}

/// The server could not start.
public struct ProxyServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}
