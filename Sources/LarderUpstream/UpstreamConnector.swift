import Foundation
import LarderHTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Opens the upstream connections that carry streams rather than objects: the TCP connection of a
/// `CONNECT` tunnel, and the connection of a WebSocket relay (with TLS for `https`). libcurl fetches
/// objects; a spliced stream lives on the event loop, so these are NIO client connections, trusting
/// what `CurlUpstream` trusts (one ``UpstreamTrust``) and never unverified.
///
/// As with libcurl's connect timeout, `connectTimeout` covers the TCP connection and the TLS handshake
/// (and, through a parent proxy, its answer to `CONNECT`).
///
/// Through a parent proxy (``UpstreamProxy``), every connection is a `CONNECT` tunnel through it,
/// TLS to the parent first for an `https://` one: blind tunnels and `wss://` use the `https`
/// parent, `ws://` the `http` one, as curl and browsers do.
public final class UpstreamConnector: Sendable {
    /// The TLS context every connection shares (its trust store is built once), and what its
    /// trust was built from.
    private struct SharedContext {
        var context: NIOSSLContext
        var stamps: TrustSourceStamps
    }

    private let trust: UpstreamTrust
    private let proxy: UpstreamProxy
    private let logger: Logger
    /// Made on first use: loading the trusted roots costs a moment, and most sessions open no
    /// stream. Made again when a file it trusts has changed.
    private let tlsContext = Mutex<SharedContext?>(nil)

    /// A connector trusting `trust`.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the additional CA file cannot be read or holds no
    ///   PEM certificate.
    public init(
        trust: UpstreamTrust, proxy: UpstreamProxy = .direct, logger: Logger = Logger(label: "larder.upstream")
    ) throws(UpstreamConfigurationError) {
        // Read now for its errors; the context reads it again when first needed.
        _ = try trust.rootsPEM(logger: logger)
        self.trust = trust
        self.proxy = proxy
        self.logger = logger
    }

    /// Opens a TCP connection to `host:port` for a tunnel: bytes both ways, half-closure allowed.
    /// With `reach` (a client on another machine), a connection to an address of the box's own it
    /// does not allow is closed before anything is sent, and an ``UpstreamError`` of kind
    /// ``UpstreamError/Kind/forbiddenAddress`` thrown.
    public func openTunnel(
        host: String,
        port: Int,
        connectTimeout: Duration,
        reach: UpstreamReach? = nil,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let route = try self.route(scheme: "https", host: host, port: port, connectTimeout: connectTimeout)
        let guarded = route.parent == nil ? reach.map { ReachGuard(reach: $0) } : nil
        let (channel, tunnel) = try await self.bootstrap(eventLoop, connectTimeout: connectTimeout)
            .connect(host: route.host, port: route.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let guarded { try channel.pipeline.syncOperations.addHandler(guarded) }
                    let tunnel = try route.addTunnel(to: channel)
                    let asyncChannel = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                    return (asyncChannel, tunnel)
                }
            }
        try await Self.refuseUnreachable(guarded, channel: channel, url: "https://\(HTTPURL.bracketed(host: host)):\(port)")
        try await Self.waitFor(tunnel, closing: channel)
        return channel
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
        reach: UpstreamReach? = nil,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound> {
        let context = tls ? try self.makeTLSContext() : nil
        let deadline = NIODeadline.now() + TimeAmount(connectTimeout)
        let route = try self.route(scheme: tls ? "https" : "http", host: host, port: port, connectTimeout: connectTimeout)
        let guarded = route.parent == nil ? reach.map { ReachGuard(reach: $0) } : nil
        let (channel, tunnel, handshake) = try await self.bootstrap(eventLoop, connectTimeout: connectTimeout)
            .connect(host: route.host, port: route.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    // First, so that TLS sends nothing to an address the client may not reach.
                    if let guarded { try operations.addHandler(guarded) }
                    let tunnel = try route.addTunnel(to: channel)
                    var handshake: EventLoopFuture<Void>?
                    if let context {
                        // SNI carries names only; an address is checked against the certificate's IP entries.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                        let waiter = TLSHandshakeWaiter(
                            handshake: channel.eventLoop.makePromise(),
                            deadline: deadline,
                            timeout: connectTimeout,
                            url: "https://\(isAddress ? HTTPURL.bracketed(host: host) : host):\(port)"
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
                    return (asyncChannel, tunnel, handshake)
                }
            }
        try await Self.refuseUnreachable(
            guarded, channel: channel, url: "\(tls ? "wss" : "ws")://\(HTTPURL.bracketed(host: host)):\(port)")
        try await Self.waitFor(tunnel, closing: channel)
        try await Self.waitFor(handshake, closing: channel)
        return channel
    }

    /// Throws, having closed `channel`, when it is connected to an address `guarded` refuses (read
    /// here too: the guard's own check may not have run yet when the connection is handed over).
    private static func refuseUnreachable<Inbound, Outbound>(
        _ guarded: ReachGuard?, channel: NIOAsyncChannel<Inbound, Outbound>, url: String
    ) async throws {
        guard let guarded else { return }
        guard let refused = guarded.refusedAddress ?? channel.channel.remoteAddress.flatMap(guarded.refuses) else { return }
        try? await channel.executeThenClose { _, _ in }
        throw UpstreamError.forbiddenAddress(refused.host, port: refused.port, url: url)
    }

    /// Where a connection to `host:port` for `scheme` goes: straight there, or to the parent with
    /// a `CONNECT` (and TLS to the parent first for an `https://` one).
    private func route(scheme: String, host: String, port: Int, connectTimeout: Duration) throws -> ConnectionRoute {
        guard let parent = self.proxy.endpoint(scheme: scheme, host: host) else {
            return ConnectionRoute(host: host, port: port, parent: nil)
        }
        return ConnectionRoute(
            host: parent.host,
            port: parent.port,
            parent: .init(
                endpoint: parent,
                tls: parent.scheme == "https" ? try self.makeTLSContext() : nil,
                targetHost: host,
                targetPort: port,
                deadline: NIODeadline.now() + TimeAmount(connectTimeout),
                timeout: connectTimeout
            )
        )
    }

    /// Waits for `step` of opening `channel`, closing the channel when it fails.
    private static func waitFor<Inbound, Outbound>(
        _ step: EventLoopFuture<Void>?, closing channel: NIOAsyncChannel<Inbound, Outbound>
    ) async throws {
        do {
            try await step?.get()
        } catch {
            try? await channel.executeThenClose { _, _ in }
            throw error
        }
    }

    private func bootstrap(_ eventLoop: any EventLoop, connectTimeout: Duration) -> ClientBootstrap {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.allowRemoteHalfClosure, value: true)
    }

    /// The shared TLS context: one trust store for every connection, built again only when a file
    /// it was built from has changed (``TrustSourceStamps``); should that fail, the last one stays.
    private func makeTLSContext() throws -> NIOSSLContext {
        try self.tlsContext.withLock { shared in
            if let context = shared?.context, shared?.stamps.haveChanged() == false {
                return context
            }
            let stamps = TrustSourceStamps(of: self.trust)
            do {
                var configuration = try self.trust.clientTLSConfiguration(logger: self.logger)
                configuration.applicationProtocols = ["http/1.1"]
                let context = try NIOSSLContext(configuration: configuration)
                shared = SharedContext(context: context, stamps: stamps)
                return context
            } catch {
                guard let context = shared?.context else { throw error }
                self.logger.error(
                    "upstream CA files changed but cannot be read; new streams keep the last trust", metadata: ["error": "\(error)"])
                return context
            }
        }
    }
}

/// The TCP connection an ``UpstreamConnector`` makes, and the tunnel through a parent on it.
private struct ConnectionRoute: Sendable {
    /// The tunnel through a parent proxy.
    struct Parent: Sendable {
        var endpoint: ProxyEndpoint
        /// TLS to the parent itself (an `https://` parent).
        var tls: NIOSSLContext?
        var targetHost: String
        var targetPort: Int
        var deadline: NIODeadline
        var timeout: Duration
    }

    /// Where the TCP connection goes.
    var host: String
    var port: Int
    var parent: Parent?

    /// Adds the handlers that open the tunnel through the parent, first in `channel`'s pipeline;
    /// returns the future of the tunnel being open, nil without a parent.
    func addTunnel(to channel: any Channel) throws -> EventLoopFuture<Void>? {
        guard let parent else { return nil }
        let operations = channel.pipeline.syncOperations
        if let tls = parent.tls {
            let isAddress = (try? SocketAddress(ipAddress: parent.endpoint.host, port: 0)) != nil
            try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : parent.endpoint.host))
        }
        let handler = ProxyConnectHandler(
            parent: parent.endpoint,
            host: parent.targetHost,
            port: parent.targetPort,
            established: channel.eventLoop.makePromise(),
            deadline: parent.deadline,
            timeout: parent.timeout
        )
        try operations.addHandler(handler)
        return handler.established.futureResult
    }
}

/// Closes a connection to an address of the box's own that a client on another machine may not
/// reach (``UpstreamReach``) as it becomes active, before any handler after it sends a byte.
private final class ReachGuard: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    let reach: UpstreamReach
    private let refused = Mutex<(host: String, port: Int)?>(nil)

    init(reach: UpstreamReach) {
        self.reach = reach
    }

    /// The address refused, if the connection was.
    var refusedAddress: (host: String, port: Int)? { self.refused.withLock { $0 } }

    /// The address and port of `remote` when the reach refuses it.
    func refuses(_ remote: SocketAddress) -> (host: String, port: Int)? {
        guard let host = remote.ipAddress, let port = remote.port, let bytes = IPNetwork.bytes(ofAddress: host),
            !self.reach.mayConnect(to: bytes, port: port)
        else { return nil }
        return (host, port)
    }

    func channelActive(context: ChannelHandlerContext) {
        if let refused = context.remoteAddress.flatMap(self.refuses) {
            self.refused.withLock { $0 = refused }
            context.close(promise: nil)
            return
        }
        context.fireChannelActive()
    }
}
