import NIOCore
import NIOHTTP1

/// Sits between the hand-built HTTP codec and the `NIOAsyncChannel` of a client connection,
/// so one async channel carries HTTP first and tunnel bytes after a `CONNECT`.
final class ProxyChannelAdapter: ChannelDuplexHandler, RemovableChannelHandler {
    // `Any` because the type of what arrives changes when the codec is removed:
    // `HTTPServerRequestPart` before, `IOData`/`ByteBuffer` after.
    typealias InboundIn = Any
    typealias InboundOut = ProxyInbound
    typealias OutboundIn = ProxyOutbound
    typealias OutboundOut = Any

    private let decoderName: String
    private let encoderName: String

    init(decoderName: String, encoderName: String) {
        self.decoderName = decoderName
        self.encoderName = encoderName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case let part as HTTPServerRequestPart:
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

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .http(let part):
            context.write(NIOAny(part), promise: promise)
        case .raw(let buffer):
            context.write(NIOAny(buffer), promise: promise)
        case .enterTunnelMode:
            // Everything written before this has passed the encoder already (writes are ordered),
            // so the codec can go. Removing the decoder forwards the bytes it still holds.
            context.flush()
            let pipeline = context.pipeline
            let removeEncoder = pipeline.removeHandler(name: self.encoderName)
            let removeDecoder = pipeline.removeHandler(name: self.decoderName)
            removeEncoder.and(removeDecoder).map { _ in }.cascade(to: promise)
        }
    }
}
