import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// An in-process WebSocket origin on 127.0.0.1 (RFC 6455 through NIOWebSocket, so frames are
/// checked as a real server checks them), for relay tests.
///
/// Every path upgrades except those under `/refuse`, which answer `403` with a text body. After the
/// upgrade the server sends a text frame `welcome` at once (so the first stream bytes may travel
/// with the `101`), answers each text frame `T` with `echo: T`, each ping with a pong, and a close
/// frame with a close frame. A client offering the subprotocol `chat` gets it.
public final class WebSocketEchoOrigin: Sendable {
    private let channel: any Channel
    private let handshakes: HandshakeLog
    private let isTLS: Bool

    /// The PEM file of the test CA that signed the TLS origin's certificate, or `nil` for plain HTTP.
    public let caCertificatePath: String?

    private init(channel: any Channel, handshakes: HandshakeLog, isTLS: Bool, caCertificatePath: String?) {
        self.channel = channel
        self.handshakes = handshakes
        self.isTLS = isTLS
        self.caCertificatePath = caCertificatePath
    }

    /// Starts an origin listening on 127.0.0.1; with `tls`, on HTTPS with a leaf for `localhost`
    /// signed by a fresh test CA (see ``caCertificatePath``).
    public static func start(tls: Bool = false) async throws -> WebSocketEchoOrigin {
        let server = tls ? try LocalhostTLSServer() : nil
        let handshakes = HandshakeLog()
        let context = server?.context
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, tlsContext: context, handshakes: handshakes)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return WebSocketEchoOrigin(channel: channel, handshakes: handshakes, isTLS: tls, caCertificatePath: server?.caCertificatePath)
    }

    /// The port the origin listens on.
    public var port: Int {
        self.channel.localAddress?.port ?? 0
    }

    /// `http://127.0.0.1:PORT` or `https://localhost:PORT` followed by `path`: the URL a proxy is
    /// asked for (a `ws://` URL travels as `http://` through a forward proxy).
    public func url(_ path: String) -> String {
        (self.isTLS ? "https://localhost:\(self.port)" : "http://127.0.0.1:\(self.port)") + path
    }

    /// The handshake requests received, oldest first.
    public var handshakeRequests: [HTTPRequestHead] {
        self.handshakes.heads.withLock { $0 }
    }

    /// Stops listening (open streams are closed too).
    public func stop() async throws {
        try await self.channel.close()
    }

    private static func configure(_ channel: any Channel, tlsContext: NIOSSLContext?, handshakes: HandshakeLog) throws {
        let operations = channel.pipeline.syncOperations
        if let tlsContext {
            try operations.addHandler(NIOSSLServerHandler(context: tlsContext))
        }
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, head in
                handshakes.heads.withLock { $0.append(head) }
                guard !head.uri.hasPrefix("/refuse") else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                let offered = head.headers["sec-websocket-protocol"].flatMap { $0.split(separator: ",") }
                if offered.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "chat" }) {
                    headers.add(name: "Sec-WebSocket-Protocol", value: "chat")
                }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebSocketEchoHandler())
                }
            }
        )
        // After an upgrade the frames must not reach the HTTP handler.
        try operations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.removeHandler(name: "refusing", promise: nil)
                }
            )
        )
        try operations.addHandler(RefusingHTTPHandler(), name: "refusing")
    }
}

/// Answers a request that was not upgraded with `403`.
private final class RefusingHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = self.unwrapInboundIn(data) else { return }
        let body = ByteBuffer(string: "no WebSocket here")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .forbidden, headers: headers))), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// The echo behaviour of ``WebSocketEchoOrigin`` after the upgrade.
private final class WebSocketEchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func handlerAdded(context: ChannelHandlerContext) {
        self.send(.text, ByteBuffer(string: "welcome"), context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var reply = ByteBuffer(string: "echo: ")
            var payload = frame.unmaskedData
            reply.writeBuffer(&payload)
            self.send(.text, reply, context: context)
        case .ping:
            self.send(.pong, frame.unmaskedData, context: context)
        case .connectionClose:
            let channel = context.channel
            let closing = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(self.wrapOutboundOut(closing)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    private func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        context.writeAndFlush(self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: data)), promise: nil)
    }
}

/// The handshake requests an origin received, shared by its connections.
private final class HandshakeLog: Sendable {
    let heads = Mutex<[HTTPRequestHead]>([])
}
