import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Opens the upstream connections that carry streams rather than objects: the TCP connection of a
/// `CONNECT` tunnel, and the connection of a WebSocket relay (with TLS for `https`). libcurl fetches
/// objects; a spliced stream lives on the event loop, so these are NIO client connections, trusting
/// what ``CurlUpstream`` trusts (one ``UpstreamTrust``) and never unverified.
///
/// As with libcurl's connect timeout, `connectTimeout` covers the TCP connection and the TLS handshake.
public final class UpstreamConnector: Sendable {
    private let rootsPEM: Data?
    /// Made on first use: loading the trusted roots costs a moment, and most sessions open no stream.
    private let tlsContext = Mutex<NIOSSLContext?>(nil)

    /// A connector trusting `trust`.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the additional CA file cannot be read or holds no
    ///   PEM certificate.
    public init(trust: UpstreamTrust, logger: Logger = Logger(label: "larder.upstream")) throws(UpstreamConfigurationError) {
        self.rootsPEM = try trust.rootsPEM(logger: logger)
    }

    /// Opens a TCP connection to `host:port` for a tunnel: bytes both ways, half-closure allowed.
    public func openTunnel(
        host: String,
        port: Int,
        connectTimeout: Duration,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await self.bootstrap(eventLoop, connectTimeout: connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                }
            }
    }

    /// Opens a connection to `host:port` for a WebSocket relay, with TLS when `tls` is set (returning
    /// once the handshake has verified the server): an HTTP client codec for the handshake, which
    /// ``WebSocketUpstreamOutbound/switchToStream`` removes.
    ///
    /// - Throws: ``UpstreamError`` of kind ``UpstreamError/Kind/tls`` when the TLS handshake fails (an
    ///   untrusted certificate, a name the certificate does not cover), or of kind
    ///   ``UpstreamError/Kind/connectTimeout`` when it does not end in time; any other error means the
    ///   server could not be reached.
    public func openWebSocket(
        host: String,
        port: Int,
        tls: Bool,
        connectTimeout: Duration,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound> {
        let context = tls ? try self.makeTLSContext() : nil
        let deadline = NIODeadline.now() + TimeAmount(connectTimeout)
        let (channel, handshake) = try await self.bootstrap(eventLoop, connectTimeout: connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    var handshake: EventLoopFuture<Void>?
                    if let context {
                        // SNI carries names only; an address is checked against the certificate's IP entries.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                        let waiter = TLSHandshakeWaiter(
                            handshake: channel.eventLoop.makePromise(),
                            deadline: deadline,
                            timeout: connectTimeout,
                            url: "https://\(isAddress && host.contains(":") ? "[\(host)]" : host):\(port)"
                        )
                        handshake = waiter.handshake.futureResult
                        try operations.addHandler(waiter)
                    }
                    try operations.addHandler(HTTPRequestEncoder(), name: WebSocketUpstreamAdapter.encoderName)
                    try operations.addHandler(
                        ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)),
                        name: WebSocketUpstreamAdapter.decoderName
                    )
                    try operations.addHandler(WebSocketUpstreamAdapter())
                    let asyncChannel = try NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                    return (asyncChannel, handshake)
                }
            }
        do {
            try await handshake?.get()
        } catch {
            try? await channel.executeThenClose { _, _ in }
            throw error
        }
        return channel
    }

    private func bootstrap(_ eventLoop: any EventLoop, connectTimeout: Duration) -> ClientBootstrap {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.allowRemoteHalfClosure, value: true)
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        try self.tlsContext.withLock { cached in
            if let cached {
                return cached
            }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
            if let rootsPEM = self.rootsPEM {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(rootsPEM)))
            }
            let context = try NIOSSLContext(configuration: configuration)
            cached = context
            return context
        }
    }
}
