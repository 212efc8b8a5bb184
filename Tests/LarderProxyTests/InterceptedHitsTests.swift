import Foundation
import LarderHTTP
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import LarderProxy

/// Hits inside intercepted TLS are answered on the connection's event loop, by the adapter, as
/// plain hits are: the connection's task never sees them.
@Suite("Intercepted hits are answered on the event loop")
struct InterceptedHitsTests {
    /// Stands in for the TLS handler: takes the handshake's bytes (starting 0x16), passes the
    /// rest through both ways, as TLS does once decrypted.
    final class PlainStandIn: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = Any
        typealias OutboundOut = Any

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if self.unwrapInboundIn(data).readableBytesView.first != 0x16 {
                context.fireChannelRead(data)
            }
        }
    }

    @Test("after CONNECT and TLS, a hit goes out with the ordinary path's bytes and never reaches the task; a miss does")
    func hitInsideTLS() async throws {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let fixture = try ImmediateHitsTests.Fixture(now: { now })
        let url = "https://site.example/app.js"
        let key = try await fixture.store(url, body: "APP", responseTime: now.addingTimeInterval(-5))
        try await fixture.load(key)
        let ordinary = try await fixture.ordinaryAnswer(url)

        let channel = EmbeddedChannel()
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(HTTPResponseEncoder(configuration: configuration), name: "enc")
        try operations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: "dec")
        try operations.addHandler(ProxyChannelAdapter(decoderName: "dec", encoderName: "enc", immediateHits: fixture.hits))

        // CONNECT, answered 200 by the task, then the ClientHello's first byte, as ProxyConnection drives it.
        try channel.writeInbound(ByteBuffer(string: "CONNECT site.example:443 HTTP/1.1\r\nHost: site.example:443\r\n\r\n"))
        guard case .http(.head(let connect))? = try channel.readInbound(as: ProxyInbound.self), connect.method == .CONNECT,
            case .http(.end)? = try channel.readInbound(as: ProxyInbound.self)
        else {
            Issue.record("no CONNECT request")
            return
        }
        channel.write(ProxyOutbound.http(.head(HTTPResponseHead(version: .http1_1, status: .ok))), promise: nil)
        channel.write(ProxyOutbound.http(.end(nil)), promise: nil)
        channel.writeAndFlush(ProxyOutbound.sniffTunnel, promise: nil)
        channel.embeddedEventLoop.run()
        while try channel.readOutbound(as: ByteBuffer.self) != nil {}
        try channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01]))
        guard case .sniffed(.tls)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("TLS not sniffed")
            return
        }
        channel.writeAndFlush(
            ProxyOutbound.startTLS(
                TLSHandlerFactory { PlainStandIn() }, origin: TunnelOrigin(scheme: "https", host: "site.example", port: 443)),
            promise: nil)
        channel.embeddedEventLoop.run()
        // The stand-in took the sniffed bytes; the requests follow.
        try channel.writeInbound(ByteBuffer(string: "GET /app.js HTTP/1.1\r\nHost: site.example\r\n\r\n"))
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil)
        var written = ByteBuffer()
        while var bytes = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&bytes) }
        #expect(String(buffer: written) == ordinary.head + ordinary.body)

        // A miss goes to the task, with its origin-form target.
        try channel.writeInbound(ByteBuffer(string: "GET /missing.js HTTP/1.1\r\nHost: site.example\r\n\r\n"))
        guard case .http(.head(let miss))? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("the miss did not reach the task")
            return
        }
        #expect(miss.uri == "/missing.js")
        _ = try? channel.finish()
    }
}
