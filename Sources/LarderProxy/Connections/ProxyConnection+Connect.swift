import LarderHTTP
import NIOCore
import NIOHTTP1

extension ProxyConnection {
    /// Carries out an allowed `CONNECT host:port` (`ConnectHandling` decides). Either the tunnel is
    /// blind at once, or it is answered `200` with no upstream connection and the client's first
    /// bytes choose: TLS intercepted (so cached HTTPS pages load offline), plain HTTP served as
    /// `http://host:port/...` (a browser's `ws://` through a proxy), anything else tunnelled blind
    /// or closed. The connection ends with the tunnel.
    func connect(
        host: String,
        port: Int,
        head: HTTPRequestHead,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        writer: ResponseWriter,
        started: ContinuousClock.Instant
    ) async throws {
        let intercepted = self.interception?.intercepts(host: host) ?? false
        let connectPorts = self.rules.connectPorts
        if ConnectHandling.beforeFirstBytes(intercepted: intercepted, port: port, connectPorts: connectPorts) == .tunnelAtOnce {
            try await self.tunnelAtOnce(host: host, port: port, head: head, iterator: &iterator, writer: writer, started: started)
            return
        }

        let outbound = writer.outbound
        try await outbound.write(contentsOf: [
            .http(.head(Self.connectionEstablished(head.version, cacheStatus: nil))), .http(.end(nil)), .sniffTunnel,
        ])
        // Nothing is owed to a client that has sent nothing: it idles (and is closed at the idle
        // timeout, or at shutdown) like a kept-alive connection.
        self.lifecycle.setIdle(true)
        let first = try await iterator.next()
        self.lifecycle.setIdle(false)
        guard case .sniffed(let traffic)? = first else { return }
        // The 200 is already out: what is logged is what became of the tunnel.
        switch ConnectHandling.afterFirstBytes(traffic, intercepted: intercepted, port: port, connectPorts: connectPorts) {
        case .intercept:
            guard let interception = self.interception else { return }
            try await self.intercept(
                host: host, port: port, head: head, interception: interception, iterator: &iterator, outbound: outbound, started: started)
        case .serveHTTP:
            try await outbound.write(.startHTTP)
            self.log(head, status: 200, cacheStatus: CacheStatus.forward(.bypass, detail: "http"), since: started)
            try await self.serveRequests(&iterator, outbound: outbound, tunnel: TunnelOrigin(scheme: "http", host: host, port: port))
        case .tunnel:
            try await self.tunnelSniffed(host: host, port: port, head: head, iterator: &iterator, outbound: outbound, started: started)
        case .refuse(let reason):
            self.closeTunnel(host: host, port: port, reason: reason)
            self.log(head, status: 403, cacheStatus: nil, since: started)
        }
    }

    /// Terminates TLS with a leaf for `host` signed by Larder's CA, then serves the requests
    /// inside as `https://host:port/...` through the cache. No upstream connection is needed for
    /// this, so cached HTTPS pages load offline. Any port: interception works per host.
    private func intercept(
        host: String,
        port: Int,
        head: HTTPRequestHead,
        interception: Interception,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        started: ContinuousClock.Instant
    ) async throws {
        let certificates = interception.certificates
        // Issue (or find) the host's certificate here, off the event loop.
        do {
            _ = try certificates.serverContext(for: host)
        } catch {
            self.closeTunnel(host: host, port: port, reason: "Larder cannot intercept \(host): \(error)")
            self.log(head, status: 502, cacheStatus: nil, since: started)
            return
        }
        let factory = TLSHandlerFactory { try certificates.makeServerHandler(connectHost: host) }
        let tunnel = TunnelOrigin(scheme: "https", host: host, port: port)
        try await outbound.write(.startTLS(factory, origin: tunnel))
        self.log(head, status: 200, cacheStatus: CacheStatus.forward(.bypass, detail: "intercepted"), since: started)
        try await self.serveRequests(&iterator, outbound: outbound, tunnel: tunnel)
    }

    /// A blind tunnel to a pass-through host on an allowed port: the upstream connection is
    /// opened before the `200`, so a host that cannot be reached gets a 502 page.
    private func tunnelAtOnce(
        host: String,
        port: Int,
        head: HTTPRequestHead,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        writer: ResponseWriter,
        started: ContinuousClock.Instant
    ) async throws {
        let bypass = CacheStatus.forward(.bypass, detail: "tunnel")
        if self.offline.isOffline {
            let page = StatusPage(
                status: .gatewayTimeout,
                title: "Offline",
                paragraphs: ["Larder is in offline mode and passes \(host):\(port) through as a tunnel, which needs the network."],
                url: nil
            )
            try await writer.page(page, cacheStatus: CacheStatus.forward(.bypass, detail: "offline"), close: true)
            self.log(head, status: 504, cacheStatus: bypass, since: started)
            return
        }
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            upstream = try await self.openTunnelUpstream(host: host, port: port)
        } catch {
            let page = StatusPage(
                status: .badGateway,
                title: "Cannot reach \(host):\(port)",
                paragraphs: ["Larder could not open a connection for the tunnel: \(error)"],
                url: nil
            )
            try await writer.page(page, cacheStatus: bypass, close: true)
            self.log(head, status: 502, cacheStatus: bypass, since: started)
            return
        }
        let outbound = writer.outbound
        try await outbound.write(contentsOf: [
            .http(.head(Self.connectionEstablished(head.version, cacheStatus: bypass))), .http(.end(nil)), .enterTunnelMode,
        ])
        self.log(head, status: 200, cacheStatus: bypass, since: started)
        try await Tunnel.splice(client: &iterator, clientOutbound: outbound, upstream: upstream)
    }

    /// A blind tunnel chosen by the first bytes, after the `200`: a failure can only close the
    /// connection (and is logged).
    private func tunnelSniffed(
        host: String,
        port: Int,
        head: HTTPRequestHead,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        started: ContinuousClock.Instant
    ) async throws {
        let bypass = CacheStatus.forward(.bypass, detail: "tunnel")
        if self.offline.isOffline {
            self.closeTunnel(host: host, port: port, reason: "Larder is in offline mode, and a tunnel needs the network")
            self.log(head, status: 504, cacheStatus: CacheStatus.forward(.bypass, detail: "offline"), since: started)
            return
        }
        // The client's bytes, the sniffed ones first, wait in the connection (with backpressure)
        // while upstream is reached.
        try await outbound.write(.enterTunnelMode)
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            upstream = try await self.openTunnelUpstream(host: host, port: port)
        } catch {
            self.closeTunnel(host: host, port: port, reason: "Larder could not open a connection for the tunnel: \(error)")
            self.log(head, status: 502, cacheStatus: bypass, since: started)
            return
        }
        self.log(head, status: 200, cacheStatus: bypass, since: started)
        try await Tunnel.splice(client: &iterator, clientOutbound: outbound, upstream: upstream)
    }

    /// Opens the upstream side of a blind tunnel (its outcome counted for back-off).
    private func openTunnelUpstream(host: String, port: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await self.connector.openTunnel(
            host: host,
            port: port,
            connectTimeout: self.configuration.connectTimeout,
            reach: self.reach,
            eventLoop: self.channel.channel.eventLoop
        )
    }

    /// Says why a tunnel answered `200` is closed without being served: the client can only see
    /// the connection close.
    private func closeTunnel(host: String, port: Int, reason: String) {
        let authority = "\(HTTPURL.bracketed(host: host)):\(port)"
        self.logger.notice("CONNECT tunnel closed", metadata: ["target": "\(authority)", "reason": "\(reason)"])
    }

    /// `200 Connection Established`, with `Via` and, when given, `Cache-Status`.
    private static func connectionEstablished(_ version: HTTPVersion, cacheStatus: CacheStatus?) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        ProxyAnswerFields.add(to: &headers, via: true, cacheStatus: cacheStatus)
        return HTTPResponseHead(version: version, status: .init(statusCode: 200, reasonPhrase: "Connection Established"), headers: headers)
    }
}
