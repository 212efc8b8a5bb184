import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The proxy's internal pieces of a cache hit, for the micro benchmarks
/// (Benchmarks/Benchmarks/LarderMicro, which import LarderProxy with `@_spi(Benchmarks)`) and
/// nothing else: the code a server runs for a hit, over a real store, without a socket.
@_spi(Benchmarks)
public struct BenchmarkHitPath: Sendable {
    private let core: ServingCore
    private let hits: ImmediateHits

    /// A proxy with the default configuration over `store`, listening (for what counts as a
    /// request for itself) on 127.0.0.1:8080. Its upstream refuses every request: the benchmarks
    /// only ask for what is stored. It logs warnings only, as `larder serve --log-level warning`
    /// does in Benchmarks/run.
    public init(store: Store) {
        var logger = Logger(label: "larder.benchmark")
        logger.logLevel = .warning
        // The server's own assembly of the parts that answer (``ServingCore``), over a refusing upstream.
        self.core = ServingCore(
            store: store, upstream: RefusingUpstream(), configuration: ProxyConfiguration(), background: BackgroundWork(), logger: logger)
        self.hits = self.core.immediateHits(
            own: RequestRoute.OwnAuthorities(port: 8080, listenHost: "127.0.0.1"),
            rules: RequestRoute.Rules(),
            reach: nil,
            log: RequestLog(
                statistics: ProxyStatistics(startedAt: self.core.configuration.now()), logger: logger, now: self.core.configuration.now),
            prepared: PreparedHits()
        )
    }

    /// Answers `head` the ordinary way (``ForwardProxy/serveCacheable(_:url:writer:keyed:)``), as a
    /// connection's task does a target's first request, which leaves the store's lookup remembered
    /// and a small body in memory for the immediate path. Returns the answer's status.
    public func answerOrdinarily(_ head: HTTPRequestHead) async throws -> Int {
        let (outbound, sink) = NIOAsyncChannelOutboundWriter<ProxyOutbound>.makeTestingWriter()
        let closed = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        defer { closed.succeed() }
        let writer = ResponseWriter(outbound: outbound, version: head.version, closeFuture: closed.futureResult)
        let outcome = try await self.core.proxy.serveCacheable(head, url: try HTTPURL(parsing: head.uri), client: .local, writer: writer)
        outbound.finish()
        for await _ in sink {}
        return outcome.status
    }

    /// The immediate answer to `head` (``ImmediateHits/answer(_:allocator:)``): the bytes written
    /// first (its head, and a body of at most 4 KiB after it) and a larger body from memory, or
    /// nil when the request must go the ordinary way. A body sent from its file (larger than the
    /// small-body limit) is not read: `body` is nil.
    /// - Parameter preparing: answer as the target's first immediate hit, which prepares it
    ///   (with a new, empty table of prepared hits), rather than from the prepared answer.
    public func immediateAnswer(
        _ head: HTTPRequestHead, allocator: ByteBufferAllocator, preparing: Bool = false
    ) -> (head: ByteBuffer, body: ByteBuffer?)? {
        self.immediateAnswer(head, tunnel: nil, allocator: allocator, preparing: preparing)
    }

    /// A request read inside intercepted TLS: its origin-form head, and the `CONNECT`'s origin.
    public struct InterceptedRequest: Sendable {
        let head: HTTPRequestHead
        let tunnel: TunnelOrigin

        /// `head`, of an absolute `https` URL, as a client sends it inside the intercepted tunnel
        /// to the URL's origin.
        public init(_ head: HTTPRequestHead) throws {
            let url = try HTTPURL(parsing: head.uri)
            var inside = head
            inside.uri = url.requestTarget
            self.head = inside
            self.tunnel = TunnelOrigin(scheme: url.scheme, host: url.host, port: url.effectivePort)
        }
    }

    /// The immediate answer to `request` inside intercepted TLS, as ``immediateAnswer(_:allocator:preparing:)``.
    public func immediateAnswer(
        _ request: InterceptedRequest, allocator: ByteBufferAllocator, preparing: Bool = false
    ) -> (head: ByteBuffer, body: ByteBuffer?)? {
        self.immediateAnswer(request.head, tunnel: request.tunnel, allocator: allocator, preparing: preparing)
    }

    private func immediateAnswer(
        _ head: HTTPRequestHead, tunnel: TunnelOrigin?, allocator: ByteBufferAllocator, preparing: Bool
    ) -> (head: ByteBuffer, body: ByteBuffer?)? {
        let answer: ImmediateHits.Answer?
        if preparing {
            let hits = self.hits
            answer = self.core.immediateHits(own: hits.own, rules: hits.rules, reach: nil, log: hits.log, prepared: PreparedHits())
                .answer(head, tunnel: tunnel, allocator: allocator)
        } else {
            // Not copied: the server's channel handler answers from the one it holds.
            answer = self.hits.answer(head, tunnel: tunnel, allocator: allocator)
        }
        guard let answer else { return nil }
        switch answer.body {
        case .bytes(let body):
            return (answer.head, body)
        case .file:
            // Closed when the last holder lets go (``StoredBodyFile``).
            return (answer.head, nil)
        case nil:
            return (answer.head, nil)
        }
    }

    /// The freshness of `entry` as every hit gets it (remembered per stored head).
    public func freshness(of entry: CachedEntry) -> ResponseFreshness {
        self.core.proxy.freshness(of: entry)
    }

    /// Writes `name: value\r\n` for each field, as the immediate path serialises a head.
    public static func writeHeaderLines(_ fields: [HeaderField], to buffer: inout ByteBuffer) {
        ImmediateHits.writeHeaderLines(fields, to: &buffer)
    }
}

/// An upstream that refuses every request.
private struct RefusingUpstream: Upstream {
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        throw UpstreamError(kind: .connectionRefused, message: "the micro benchmarks reach no origin", url: request.url)
    }
}
