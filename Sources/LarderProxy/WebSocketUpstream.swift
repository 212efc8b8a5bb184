import LarderHTTP
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// What an upstream WebSocket connection delivers: the handshake's HTTP answer, then raw bytes
/// once the response decoder is removed.
enum WebSocketUpstreamInbound: Sendable {
    /// A decoded part of the handshake's answer.
    case http(HTTPClientResponsePart)
    /// Bytes of the stream.
    case raw(ByteBuffer)
}

/// What is written to an upstream WebSocket connection: the handshake through the request
/// encoder, then raw bytes once the codec is removed.
enum WebSocketUpstreamOutbound: Sendable {
    /// A part of the handshake request.
    case http(HTTPClientRequestPart)
    /// Bytes of the stream.
    case raw(ByteBuffer)
    /// Remove the HTTP codec after a `101`: every byte from now on is the stream's, starting with
    /// any that came with the answer.
    case switchToStream
}

/// Opens the upstream side of WebSocket relays. libcurl fetches objects; a spliced stream lives on
/// the event loop like a `CONNECT` tunnel, so it is a NIO client connection (with NIOSSL for
/// `https`, verified against the system's trust store and `--upstream-ca`, never unverified).
final class WebSocketUpstream: Sendable {
    static let decoderName = "websocket-upstream-decoder"
    static let encoderName = "websocket-upstream-encoder"

    private let additionalCAFile: String?
    private let connectTimeout: Duration
    /// Made on first use: loading the trust store costs a moment, and most sessions open no stream.
    private let tlsContext = Mutex<NIOSSLContext?>(nil)

    /// - Parameters:
    ///   - additionalCAFile: A PEM file of extra trusted roots (`--upstream-ca`).
    ///   - connectTimeout: How long to wait for the TCP connection.
    init(additionalCAFile: String?, connectTimeout: Duration) {
        self.additionalCAFile = additionalCAFile
        self.connectTimeout = connectTimeout
    }

    /// Connects to `host:port`, with TLS when `tls` is set. The TLS handshake completes (or fails)
    /// with the first exchange.
    func connect(
        host: String,
        port: Int,
        tls: Bool,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound> {
        let context = tls ? try self.makeTLSContext() : nil
        let timeout = self.connectTimeout.components
        return try await ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000))
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let context {
                        // SNI carries names only; an address is checked against the certificate's IP entries.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        let serverName = isAddress ? nil : host
                        try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    }
                    try operations.addHandler(HTTPRequestEncoder(), name: Self.encoderName)
                    try operations.addHandler(
                        ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)),
                        name: Self.decoderName
                    )
                    try operations.addHandler(WebSocketUpstreamAdapter())
                    return try NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                }
            }
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        try self.tlsContext.withLock { cached in
            if let cached {
                return cached
            }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
            if let additionalCAFile = self.additionalCAFile {
                configuration.additionalTrustRoots = [.file(additionalCAFile)]
            }
            let context = try NIOSSLContext(configuration: configuration)
            cached = context
            return context
        }
    }
}

/// Wraps what arrives from upstream (decoded response parts while the decoder is in place, bytes
/// after it is removed, starting with any it still held) and unwraps what is written.
final class WebSocketUpstreamAdapter: ChannelDuplexHandler, RemovableChannelHandler {
    // `Any`: the type of what arrives changes when the decoder is removed.
    typealias InboundIn = Any
    typealias InboundOut = WebSocketUpstreamInbound
    typealias OutboundIn = WebSocketUpstreamOutbound
    typealias OutboundOut = Any

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .http(let part):
            context.write(NIOAny(part), promise: promise)
        case .raw(let buffer):
            context.write(NIOAny(buffer), promise: promise)
        case .switchToStream:
            CodecRemoval.remove(
                encoderName: WebSocketUpstream.encoderName, decoderName: WebSocketUpstream.decoderName,
                context: context, promise: promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case let part as HTTPClientResponsePart:
            context.fireChannelRead(self.wrapInboundOut(.http(part)))
        case let buffer as ByteBuffer:
            context.fireChannelRead(self.wrapInboundOut(.raw(buffer)))
        case let ioData as IOData:
            if case .byteBuffer(let buffer) = ioData {
                context.fireChannelRead(self.wrapInboundOut(.raw(buffer)))
            }
        default:
            break
        }
    }
}
