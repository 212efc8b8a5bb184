import ServiceLifecycle

/// One of the proxy's long-lived jobs (last-use batching, eviction, precache jobs, the sweep of
/// what a crash left) as a `Service`, so that every long-lived piece runs in the one
/// `ServiceGroup` (``ProxyServer/jobs``). It runs until graceful shutdown reaches it, which
/// cancels it; a job that is done sooner waits for the shutdown, since a service that returns
/// would end the group.
struct ProxyJob: Service {
    /// What the job is, for the service group's log.
    let name: String
    let body: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.body() }
        try? await gracefulShutdown()
    }
}

extension ProxyJob: CustomStringConvertible {
    var description: String { self.name }
}
