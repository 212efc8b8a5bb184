import ServiceLifecycle

/// Work that outlives the request that started it (a background refresh, a late answer stored
/// after a network timeout), owned by one service: it runs in this service's task group, so on
/// shutdown it is finished (or cancelled) before the services after it (upstream, store) stop.
public final class BackgroundWork: Service, Sendable {
    /// One piece of work.
    public typealias Work = @Sendable () async -> Void

    private let stream: AsyncStream<Work>
    private let continuation: AsyncStream<Work>.Continuation

    /// Creates the service; nothing runs until `run()`.
    public init() {
        (self.stream, self.continuation) = AsyncStream.makeStream(of: Work.self)
    }

    /// Runs `work` in the service's task group. After shutdown began it is dropped: nothing new
    /// starts once the server stopped serving.
    public func submit(_ work: @escaping Work) {
        self.continuation.yield(work)
    }

    /// Runs submitted work until graceful shutdown (then waits for what runs) or cancellation
    /// (then cancels it).
    public func run() async {
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await work in self.stream {
                    group.addTask { await work() }
                }
            } onGracefulShutdown: {
                self.continuation.finish()
            }
        }
    }
}
