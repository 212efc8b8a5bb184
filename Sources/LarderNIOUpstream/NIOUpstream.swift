import AsyncHTTPClient
import Foundation
import LarderHTTP
import LarderUpstream
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// The ``Upstream`` that fetches with AsyncHTTPClient on SwiftNIO, for platforms without libcurl.
///
/// It behaves as `CurlUpstream` does: the head is returned as it arrives and the body streams
/// after it at the pace it is read (dropping it cancels the transfer); redirects are answers;
/// bodies come as the origin encoded them; no cookies; TLS is always verified against the system's
/// roots and ``UpstreamTrust``; failures are ``UpstreamError``s of the same kinds. Where it differs:
///
/// - Interim heads (`103 Early Hints`) are never reported: AsyncHTTPClient drops 1xx heads, so
///   ``UpstreamRequest/interim`` is not called.
/// - HTTP/1.1 only, one request per connection at a time; `Expect: 100-continue` is never sent.
/// - The connection limits count transfers in flight (``NIOConnectionSlots``): idle kept-alive
///   connections are not counted against ``UpstreamConfiguration/maxTotalConnections``.
/// - ``UpstreamRequest/reach`` is judged by resolving the host before the request, not on the
///   address connected to (AsyncHTTPClient has no resolver hook).
/// - A parent proxy must be `http://`: AsyncHTTPClient speaks no TLS to a proxy. `https://`
///   requests are tunnelled through it (`CONNECT`) and `http://` ones forwarded in absolute
///   form (``AbsoluteFormRequestTarget``), as curl does.
/// - Before the head, the idle timeout starts after the connect timeout (or the first request
///   body byte), as AsyncHTTPClient does not say when a connection is made.
/// - A request on a kept-alive connection the origin has just closed is not sent again.
/// - The trusted roots are read when a client is made, not again when the files change.
public final class NIOUpstream: Upstream, Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let clients: NIOClientSet
    private let settings: NIOTransfer.Settings
    private let logger: Logger

    /// Starts a client and its event loop thread.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the configuration is unusable: an additional CA
    ///   file that cannot be read or holds no PEM certificate, a negative connection limit, or an
    ///   `https://` parent proxy.
    public init(configuration: UpstreamConfiguration = .init(), logger: Logger = Logger(label: "larder.upstream")) throws {
        guard configuration.maxConnectionsPerHost >= 0, configuration.maxTotalConnections >= 0 else {
            throw UpstreamConfigurationError(
                message: "connection limits must be 0 (no limit) or more, not maxConnectionsPerHost "
                    + "\(configuration.maxConnectionsPerHost) and maxTotalConnections \(configuration.maxTotalConnections)"
            )
        }
        for parent in [configuration.proxy.http, configuration.proxy.https].compactMap({ $0 }) where parent.scheme != "http" {
            throw UpstreamConfigurationError(
                message: "the upstream proxy \(parent) is reached over TLS, which NIOUpstream cannot do; give an http:// one")
        }
        let tls: TLSConfiguration
        do {
            tls = try configuration.trust.clientTLSConfiguration(logger: logger)
        } catch let error as UpstreamConfigurationError {
            throw error
        } catch {
            throw UpstreamConfigurationError(
                message: "cannot load the additional CA file \(configuration.trust.additionalCAFile ?? "-"): \(error)")
        }
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // NIO's own thread initializers are not public: the set-up runs as the loop's first task.
        // The thread is named for what it does, apart from the proxy's own NIO-ELT loops.
        let threadSetUp = configuration.threadSetUp
        for loop in self.group.makeIterator() {
            loop.execute {
                Thread.current.name = "larder-upstream"
                threadSetUp?()
            }
        }
        self.clients = NIOClientSet(
            base: .init(tls: tls, maxConnectionsPerHost: configuration.maxConnectionsPerHost, eventLoopGroup: self.group, logger: logger),
            maxTotalConnections: configuration.maxTotalConnections)
        self.settings = NIOTransfer.Settings(userAgent: configuration.userAgent, proxy: configuration.proxy)
        self.logger = logger
    }

    deinit {
        // Not shut down by its owner: stop without waiting, clients before their event loop.
        guard let (transfers, clients) = self.clients.shutDown() else { return }
        for transfer in transfers { transfer.cancel(.shutdown) }
        let group = self.group
        Task {
            for client in clients { try? await client.shutdown() }
            try? await group.shutdownGracefully()
        }
    }

    /// Sends `request` and returns once the response head has arrived; see ``Upstream/execute(_:)``.
    ///
    /// - Throws: ``UpstreamError`` when the request is invalid or the transfer fails before the head,
    ///   `CancellationError` when the calling task is cancelled first (which aborts the transfer).
    public func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        try request.validate()
        let clients = self.clients
        let transfer = NIOTransfer(
            request: request, settings: self.settings, slots: clients.slots, eventLoop: self.group.next(), logger: self.logger,
            onEnd: { clients.end($0) })
        let key = NIOClientSet.Key(
            connectTimeout: request.connectTimeout, parent: transfer.forwardedTo == nil ? transfer.parent : nil,
            forwardsAbsoluteForm: transfer.forwardedTo != nil)
        guard let client = clients.begin(transfer, key: key) else {
            throw UpstreamError(
                kind: .cancelled, message: "\(request.method) not sent: the upstream client has shut down", url: request.url)
        }
        return try await transfer.run(on: client)
    }

    /// Fails in-flight transfers with ``UpstreamError/Kind/cancelled`` and stops the clients and
    /// their event loop; later requests fail the same way.
    ///
    /// Idempotent; the first call returns once everything has stopped. Dropping the last reference
    /// does the same without waiting.
    public func shutdown() async {
        guard let (transfers, clients) = self.clients.shutDown() else { return }
        for transfer in transfers { transfer.cancel(.shutdown) }
        for client in clients { try? await client.shutdown() }
        try? await self.group.shutdownGracefully()
    }
}
