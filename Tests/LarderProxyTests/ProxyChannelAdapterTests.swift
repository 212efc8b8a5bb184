import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import LarderProxy

@Suite("ProxyChannelAdapter")
struct ProxyChannelAdapterTests {
    private func makeChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder(configuration: configuration), name: "enc")
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: "dec")
        try channel.pipeline.syncOperations.addHandler(ProxyChannelAdapter(decoderName: "dec", encoderName: "enc"))
        return channel
    }

    @Test("HTTP parts pass as .http; after CONNECT and tunnel mode, early client bytes arrive as .raw")
    func tunnelSwitchKeepsEarlyBytes() throws {
        let channel = try self.makeChannel()
        // The client sends its TLS ClientHello right behind the CONNECT, without waiting for 200.
        try channel.writeInbound(ByteBuffer(string: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nEARLY-BYTES"))
        guard case .http(.head(let head))? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no head")
            return
        }
        #expect(head.method == .CONNECT)
        guard case .http(.end)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("no end")
            return
        }

        var headers = HTTPHeaders()
        headers.add(name: "Via", value: "1.1 larder")
        channel.write(ProxyOutbound.http(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        channel.write(ProxyOutbound.http(.end(nil)), promise: nil)
        let switched = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(ProxyOutbound.enterTunnelMode, promise: switched)
        channel.embeddedEventLoop.run()
        try switched.futureResult.wait()

        var written = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&part) }
        #expect(String(buffer: written) == "HTTP/1.1 200 OK\r\nVia: 1.1 larder\r\n\r\n")

        guard case .raw(let early)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("early bytes lost")
            return
        }
        #expect(String(buffer: early) == "EARLY-BYTES")

        try channel.writeInbound(ByteBuffer(string: "\u{16}\u{03}\u{01}more"))
        guard case .raw(let more)? = try channel.readInbound(as: ProxyInbound.self) else {
            Issue.record("tunnel bytes not raw")
            return
        }
        #expect(String(buffer: more) == "\u{16}\u{03}\u{01}more")
        channel.write(ProxyOutbound.raw(ByteBuffer(string: "server-bytes")), promise: nil)
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "server-bytes")
        _ = try channel.finish()
    }

    @Test("a smuggling shape (Content-Length and Transfer-Encoding) is a decoder error")
    func smuggling() throws {
        let channel = try self.makeChannel()
        #expect(throws: (any Error).self) {
            try channel.writeInbound(
                ByteBuffer(
                    string:
                        "POST http://a.example/ HTTP/1.1\r\nHost: a.example\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                )
            )
        }
        _ = try? channel.finish()
    }
}
