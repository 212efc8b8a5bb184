import NIOCore
import NIOHTTP1

/// Wraps what arrives from upstream (decoded response parts while the decoder is in place, bytes
/// after it is removed, starting with any it still held) and unwraps what is written.
final class WebSocketUpstreamAdapter: ChannelDuplexHandler, RemovableChannelHandler {
    static let decoderName = "websocket-upstream-decoder"
    static let encoderName = "websocket-upstream-encoder"

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
            CodecRemoval.remove(encoderName: Self.encoderName, decoderName: Self.decoderName, context: context, promise: promise)
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
