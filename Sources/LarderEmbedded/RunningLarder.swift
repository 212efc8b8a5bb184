import LarderDevOffline
import LarderPrecache
import LarderProxy
import LarderStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// One start of a ``Larder``: the store, the upstream client, the proxy server and its precache
/// jobs, run as one `ServiceGroup` until graceful shutdown. The one place the proxy is assembled:
/// `larder serve` starts a ``Larder`` too.
final class RunningLarder: Sendable {
    /// Which start of its ``Larder`` this is.
    let generation: Int
    let server: ProxyServer
    let store: Store
    let jobs: PrecacheJobs
    let host: String
    let port: Int
    let certificateAuthorityPath: String?
    private let group: ServiceGroup
    /// Runs the group, then stops the event loops; ends when everything has stopped.
    private let task: Task<Void, any Error>

    private init(
        generation: Int, server: ProxyServer, store: Store, jobs: PrecacheJobs, address: SocketAddress, certificateAuthorityPath: String?,
        group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.generation = generation
        self.server = server
        self.store = store
        self.jobs = jobs
        self.host = address.ipAddress ?? "127.0.0.1"
        self.port = address.port ?? 0
        self.certificateAuthorityPath = certificateAuthorityPath
        self.group = group
        self.task = task
    }

    /// Opens the store, makes the upstream client and the interception CA, and runs everything
    /// until the server listens. `onEnd` is called once everything has stopped, however it ends.
    ///
    /// - Throws: ``LarderError`` naming the part that failed; what was opened is closed again.
    static func start(_ configuration: Larder.Configuration, generation: Int, onEnd: @escaping @Sendable () -> Void)
        async throws(LarderError)
        -> RunningLarder
    {
        let proxy = configuration.proxy
        guard CIDR.isLoopback(host: proxy.host) || !proxy.allowList.networks.isEmpty else {
            throw .openProxy(host: proxy.host)
        }
        let store: Store
        do {
            store = try Store(directory: configuration.cacheDirectory, logger: Logger(label: "larder.store"))
        } catch {
            throw .cacheDirectory(configuration.cacheDirectory, error)
        }
        PrivateDirectory.warnIfLoose(store.directory, logger: Logger(label: "larder.store"))
        let interception: Interception?
        let client: UpstreamClient
        do throws(LarderError) {
            interception = try Self.interception(configuration)
            do {
                let upstreamLogger = Logger(label: "larder.upstream")
                client =
                    try configuration.upstream?(upstreamLogger)
                    ?? UpstreamClient.make(
                        configuration.upstreamClient, configuration: configuration.upstreamConfiguration, logger: upstreamLogger)
            } catch {
                throw LarderError.upstream(error)
            }
        } catch {
            try? store.close()
            throw error
        }

        let logger = configuration.logger
        let eventLoops = MultiThreadedEventLoopGroup(
            numberOfThreads: configuration.eventLoops ?? ServingEventLoops.defaultCount(cores: System.coreCount))
        let listening = AsyncStream<SocketAddress>.makeStream()
        var jobs: PrecacheJobs?
        // The server counts into this registry; /metrics emits it.
        let metrics = MetricsExposition()
        let server = ProxyServer(
            configuration: proxy,
            store: store,
            upstream: client.upstream,
            connector: client.connector,
            background: BackgroundWork(),
            precacheUpstream: client.precache?.upstream,
            precacheJobs: { upstream, clients in
                var options = configuration.precache
                options.queryFilter = proxy.queryFilter
                options.pauseBeforeDownload = { clients.isBusy() ? PrecacheOptions.pauseWhileClientsBusy : .zero }
                let made = PrecacheJobs(runner: PrecacheRunner(store: store, upstream: upstream, options: options, logger: logger))
                jobs = made
                return made
            },
            interception: interception,
            metrics: metrics.factory,
            // The proxy and its pages know nothing of each other: the pages read the server through
            // the introspection it hands them.
            pages: { proxy in
                try DevOfflinePages(
                    proxy: proxy, store: store, metrics: metrics, upstreamClient: client.kind?.description ?? "the app's own")
            },
            group: eventLoops,
            logger: logger,
            onListening: { address in
                listening.continuation.yield(address)
                listening.continuation.finish()
            }
        )
        guard let jobs else {
            preconditionFailure("ProxyServer makes its precache jobs as it is created")
        }
        // Stopped in reverse order: the server, then the work it left, then the upstream, then the
        // store. A service that fails stops the others in that order too.
        let services: [any Service] =
            [StoreService(store: store)] + (client.service.map { [$0] } ?? []) + (client.precache?.service.map { [$0] } ?? [])
            + server.services
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: configuration.stopsOnTerminationSignals ? [.sigterm, .sigint] : [],
            logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGrace
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task {
            var failure: (any Error)?
            do {
                try await group.run()
            } catch {
                failure = error
            }
            listening.continuation.finish()
            try? await eventLoops.shutdownGracefully()
            onEnd()
            if let failure { throw failure }
        }
        for await address in listening.stream {
            return RunningLarder(
                generation: generation, server: server, store: store, jobs: jobs, address: address,
                certificateAuthorityPath: interception?.certificates.authority.certificatePath, group: group, task: task)
        }
        // Everything stopped before listening: nearly always the bind.
        do {
            try await task.value
        } catch {
            throw .cannotListen(host: proxy.host, port: proxy.port, error)
        }
        throw .cannotListen(host: proxy.host, port: proxy.port, CancellationError())
    }

    /// The interception of HTTPS with the cache directory's CA (created on first use), or nil when
    /// HTTPS is tunnelled untouched.
    private static func interception(_ configuration: Larder.Configuration) throws(LarderError) -> Interception? {
        guard configuration.interceptsHTTPS else { return nil }
        do {
            let now = configuration.proxy.now
            let authority = try CertificateAuthority.loadOrCreate(directory: configuration.cacheDirectory, now: now())
            return Interception(
                certificates: InterceptionCertificates(authority: authority, now: now), tunnelHosts: configuration.tunnelHosts)
        } catch {
            throw .certificateAuthority(error)
        }
    }

    /// Shuts down gracefully and waits until everything has stopped.
    func stop() async throws {
        await self.group.triggerGracefulShutdown()
        try await self.task.value
    }

    /// Waits until everything has stopped, however that comes about.
    func finished() async throws {
        try await self.task.value
    }
}
