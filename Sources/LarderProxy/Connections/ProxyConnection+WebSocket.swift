import LarderHTTP
import LarderStore
import LarderUpstream
import NIOCore
import NIOHTTP1
import NIOSSL

extension ProxyConnection {
    /// Forwards a WebSocket handshake (plain, or inside an intercepted TLS tunnel) and, once
    /// upstream answers `101`, splices the two connections until both sides are done. Any other
    /// answer is relayed and the connection closes. Streams are not stored.
    func relayWebSocket(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        writer: ResponseWriter,
        started: ContinuousClock.Instant
    ) async throws {
        guard try await Self.skipBody(&iterator) else { return }
        if self.offline.isOffline {
            let offline = Self.refusalStatus(.offline)
            let paragraphs = ["Larder is in offline mode; a WebSocket needs the network."]
            self.offlineMissLog.record(head, url: url, cacheStatus: offline)
            try await writer.page(
                StatusPage(status: .gatewayTimeout, title: "Offline", paragraphs: paragraphs, url: url.absoluteString),
                cacheStatus: offline, close: true)
            self.log(head, status: 504, cacheStatus: offline, since: started)
            return
        }
        guard self.health.admit(origin: url.origin) else {
            let reason = "Connections to \(url.host) failed repeatedly; Larder waits a while before trying it again."
            try await self.refuseWebSocket(
                head, url: url, status: .badGateway, reason: reason, unreachable: .upstreamBackoff, writer: writer, started: started)
            return
        }

        let upstream: NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound>
        do {
            upstream = try await self.connector.openWebSocket(
                to: url, connectTimeout: self.configuration.connectTimeout, reach: self.reach, eventLoop: self.channel.channel.eventLoop)
        } catch let error as UpstreamError where error.kind == .tls {
            try await self.refuseWebSocket(
                head, url: url, status: .badGateway, reason: Self.tlsFailure(url, error.message), writer: writer, started: started)
            return
        } catch {
            let reason = "Larder could not connect to \(url.host):\(url.effectivePort): \(error)"
            try await self.refuseWebSocket(
                head, url: url, status: .badGateway, reason: reason, unreachable: .upstreamUnreachable, writer: writer, started: started)
            return
        }

        // A server that takes the connection but never answers must not hold the client forever.
        let answerTimeout = self.configuration.idleTimeout
        try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
            var upstreamIterator = upstreamInbound.makeAsyncIterator()
            let watchdog = upstream.channel.eventLoop.scheduleTask(in: .seconds(answerTimeout.components.seconds)) {
                upstream.channel.close(promise: nil)
            }
            let answer: HTTPResponseHead?
            do {
                try await upstreamOutbound.write(contentsOf: [
                    .http(.head(WebSocketHandshake.upstreamRequest(head, url: url))), .http(.end(nil)),
                ])
                answer = try await Self.responseHead(&upstreamIterator)
                watchdog.cancel()
            } catch {
                watchdog.cancel()
                let reason =
                    error is NIOSSLError
                    ? Self.tlsFailure(url, "\(error)")
                    : "The connection to \(url.authority) broke during the WebSocket handshake: \(error)"
                try await self.refuseWebSocket(head, url: url, status: .badGateway, reason: reason, writer: writer, started: started)
                return
            }
            guard let answer else {
                let reason = "\(url.authority) did not answer the WebSocket handshake (Larder waits \(answerTimeout) for an answer)."
                try await self.refuseWebSocket(head, url: url, status: .badGateway, reason: reason, writer: writer, started: started)
                return
            }

            let relayed = CacheStatus.forward(.bypass, status: Int(answer.status.code), detail: "websocket")
            guard answer.status == .switchingProtocols else {
                try await writer.outbound.write(
                    .http(.head(WebSocketHandshake.refusalResponse(answer, version: writer.version, cacheStatus: relayed))))
                while case .http(let part)? = try await upstreamIterator.next() {
                    if case .body(let buffer) = part {
                        try await writer.body(buffer)
                    } else if case .end = part {
                        break
                    }
                }
                try await writer.end()
                self.log(head, status: Int(answer.status.code), cacheStatus: relayed, since: started)
                return
            }

            try await writer.outbound.write(
                .http(.head(WebSocketHandshake.switchingResponse(answer, version: writer.version, cacheStatus: relayed))))
            try await writer.outbound.write(.http(.end(nil)))
            try await outbound.write(.enterTunnelMode)
            try await upstreamOutbound.write(.switchToStream)
            self.log(head, status: 101, cacheStatus: relayed, since: started)
            let fromUpstream = HandedOverIterator(upstreamIterator)
            try await Tunnel.splice(
                client: &iterator,
                clientOutbound: outbound,
                nextFromUpstream: {
                    // A `.end` the decoder produced before it was removed carries nothing.
                    while let part = try await fromUpstream.iterator.next() {
                        if case .raw(let buffer) = part {
                            return buffer
                        }
                    }
                    return nil
                },
                upstreamOutbound: upstreamOutbound,
                wrap: { .raw($0) }
            )
        }
    }

    /// Why a WebSocket was not opened when TLS with upstream failed.
    private static func tlsFailure(_ url: HTTPURL, _ error: String) -> String {
        "The TLS handshake with \(url.authority) failed, so Larder did not open the WebSocket: \(error)"
    }

    /// The head of upstream's answer, skipping interim `1xx` answers other than `101`; nil when
    /// the connection ended first.
    private static func responseHead(
        _ iterator: inout NIOAsyncChannelInboundStream<WebSocketUpstreamInbound>.AsyncIterator
    ) async throws -> HTTPResponseHead? {
        while let part = try await iterator.next() {
            guard case .http(.head(let head)) = part else { continue }
            if head.status == .switchingProtocols || head.status.code >= 200 {
                return head
            }
        }
        return nil
    }

    /// The `Cache-Status` of a handshake refused because the origin could not be reached (`why`),
    /// which makes it an offline miss (``OfflineMisses/Reason/init(cacheStatus:)``), or for another
    /// reason (nil).
    private static func refusalStatus(_ why: OfflineMisses.Reason?) -> CacheStatus {
        CacheStatus.forward(.bypass, detail: why.map { "\($0.rawValue)+websocket" } ?? "websocket")
    }

    /// Answers the handshake with a Larder page and logs it; the connection then closes. `unreachable`
    /// says why the origin could not be reached, when that is why: the refusal is then an offline miss.
    private func refuseWebSocket(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        status: HTTPResponseStatus,
        reason: String,
        unreachable: OfflineMisses.Reason? = nil,
        writer: ResponseWriter,
        started: ContinuousClock.Instant
    ) async throws {
        let cacheStatus = Self.refusalStatus(unreachable)
        self.offlineMissLog.record(head, url: url, cacheStatus: cacheStatus)
        let page = StatusPage(status: status, title: "WebSocket not opened", paragraphs: [reason], url: url.absoluteString)
        try await writer.page(page, cacheStatus: cacheStatus, close: true)
        self.log(head, status: Int(status.code), cacheStatus: cacheStatus, since: started)
    }
}
