import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

@testable import LarderProxy

/// The client side of a `CONNECT` tunnel that waits for its first bytes: the pipeline of
/// `ProxyServer` (encoder, decoder, adapter) driven by hand as `ProxyConnection` drives it.
@Suite("TunnelSniffer: the first bytes of a CONNECT tunnel choose its pipeline, and none is lost")
struct TunnelSnifferTests {
    /// Counts the reads that reach the socket end of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0

        func read(context: ChannelHandlerContext) {
            self.reads += 1
            context.read()
        }
    }

    /// Stands in for the TLS handler: keeps the bytes it is given, passes nothing on.
    final class TLSStandIn: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex(ByteBuffer())

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = self.unwrapInboundIn(data)
            _ = self.received.withLock { $0.writeBuffer(&buffer) }
        }
    }

    private func makeChannel(counter: ReadCounter = ReadCounter()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder(configuration: configuration), name: "enc")
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: "dec")
        try channel.pipeline.syncOperations.addHandler(ProxyChannelAdapter(decoderName: "dec", encoderName: "enc"))
        return channel
    }

    /// Sends `CONNECT` followed by `early`, answers it 200 and starts sniffing, as `ProxyConnection` does.
    private func connect(_ channel: EmbeddedChannel, early: String = "") throws {
        try channel.writeInbound(ByteBuffer(string: "CONNECT 127.0.0.1:8080 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n" + early))
        guard case .http(.head(let head))? = try channel.readInbound(as: ProxyInbound.self), head.method == .CONNECT,
            case .http(.end)? = try channel.readInbound(as: ProxyInbound.self)
        else {
            Issue.record("no CONNECT request")
            return
        }
        channel.write(ProxyOutbound.http(.head(HTTPResponseHead(version: .http1_1, status: .ok))), promise: nil)
        channel.write(ProxyOutbound.http(.end(nil)), promise: nil)
        channel.writeAndFlush(ProxyOutbound.sniffTunnel, promise: nil)
        channel.embeddedEventLoop.run()
        var written = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&part) }
        #expect(String(buffer: written) == "HTTP/1.1 200 OK\r\n\r\n")
    }

    private func sniffed(_ channel: EmbeddedChannel) throws -> TunnelTraffic? {
        guard case .sniffed(let traffic)? = try channel.readInbound(as: ProxyInbound.self) else { return nil }
        return traffic
    }

    @Test("plain HTTP: told once enough bytes arrive; the request, split across reads and sent before the 200, is decoded whole")
    func plainHTTP() throws {
        let channel = try self.makeChannel()
        try self.connect(channel, early: "GE")
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil, "two bytes cannot tell")
        try channel.writeInbound(ByteBuffer(string: "T /chat?room=1 HT"))
        #expect(try self.sniffed(channel) == .http)
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil, "the bytes are held, not passed on")
        try channel.writeInbound(ByteBuffer(string: "TP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\n\r\n"))

        channel.writeAndFlush(ProxyOutbound.startHTTP, promise: nil)
        channel.embeddedEventLoop.run()
        guard case .http(.head(let head))? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no request head inside the tunnel")
            return
        }
        #expect(head.method == .GET)
        #expect(head.uri == "/chat?room=1")
        #expect(head.headers["upgrade"] == ["websocket"])
        guard case .http(.end)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no request end")
            return
        }
        // Keep-alive inside the tunnel: the next request is decoded too.
        try channel.writeInbound(ByteBuffer(string: "GET /next HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"))
        guard case .http(.head(let next))? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no second request")
            return
        }
        #expect(next.uri == "/next")
        _ = try channel.finish()
    }

    @Test("TLS: the ClientHello goes to the TLS handler from its first byte, and a decoder reads behind it")
    func tls() throws {
        let channel = try self.makeChannel()
        try self.connect(channel, early: "\u{16}\u{03}")
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil)
        try channel.writeInbound(ByteBuffer(bytes: [0x01, 0x02, 0x00]))
        #expect(try self.sniffed(channel) == .tls)
        try channel.writeInbound(ByteBuffer(bytes: [0xAA, 0xBB]))

        let standIn = TLSStandIn()
        channel.writeAndFlush(
            ProxyOutbound.startTLS(TLSHandlerFactory { standIn }, origin: TunnelOrigin(scheme: "https", host: "127.0.0.1", port: 8080)),
            promise: nil)
        channel.embeddedEventLoop.run()
        #expect(standIn.received.withLock { Array($0.readableBytesView) } == [0x16, 0x03, 0x01, 0x02, 0x00, 0xAA, 0xBB])
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil)
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.context(name: "dec") }
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.context(name: TunnelSniffer.name) }
        _ = try channel.finish()
    }

    @Test("anything else: tunnel mode hands every byte on raw, in order, and the codec is gone")
    func other() throws {
        let channel = try self.makeChannel()
        try self.connect(channel, early: "\u{0}\u{1}")
        #expect(try self.sniffed(channel) == .other)
        try channel.writeInbound(ByteBuffer(string: "later"))

        channel.writeAndFlush(ProxyOutbound.enterTunnelMode, promise: nil)
        channel.embeddedEventLoop.run()
        var received = ByteBuffer()
        while case .raw(var buffer)? = try channel.readInbound(as: ProxyInbound.self) { received.writeBuffer(&buffer) }
        #expect(String(buffer: received) == "\u{0}\u{1}later")
        try channel.writeInbound(ByteBuffer(string: "more"))
        guard case .raw(let more)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("tunnel bytes not raw")
            return
        }
        #expect(String(buffer: more) == "more")
        channel.writeAndFlush(ProxyOutbound.raw(ByteBuffer(string: "server")), promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "server")
        _ = try channel.finish()
    }

    @Test("once it has told, no read reaches the socket until the next pipeline is in place")
    func readsWaitForTheDecision() throws {
        let counter = ReadCounter()
        let channel = try self.makeChannel(counter: counter)
        try self.connect(channel)
        let before = counter.reads
        channel.read()
        #expect(counter.reads == before + 1, "reads pass while the first bytes are awaited")
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(try self.sniffed(channel) == .http)
        channel.read()
        channel.read()
        #expect(counter.reads == before + 1)
        channel.writeAndFlush(ProxyOutbound.startHTTP, promise: nil)
        channel.embeddedEventLoop.run()
        #expect(counter.reads == before + 2, "the withheld read is issued as the sniffer goes")
        guard case .http(.head)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no request after the sniffer went")
            return
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("a client that stops sending before its bytes can tell sends something other than TLS or HTTP")
    func endBeforeVerdict() throws {
        let channel = try self.makeChannel()
        try self.connect(channel, early: "GE")
        #expect(try channel.readInbound(as: ProxyInbound.self) == nil)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try self.sniffed(channel) == .other)
        channel.writeAndFlush(ProxyOutbound.enterTunnelMode, promise: nil)
        channel.embeddedEventLoop.run()
        guard case .raw(let bytes)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("the held bytes were lost")
            return
        }
        #expect(String(buffer: bytes) == "GE")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
