import LarderHTTP
import NIOCore

/// Answers a connection Larder will not serve (a client outside `--allow`, or one over the
/// connection limits) the moment it is accepted, without reading its request: a short page, then
/// the connection closes. Whatever the client sends meanwhile is discarded, for at most
/// ``linger``, so the answer is not lost to a reset.
final class ClientRefusal: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// How long a refused connection is kept for its answer to be read.
    static let linger: TimeAmount = .seconds(2)

    private let answer: String

    /// A refusal with `status` (e.g. `403 Forbidden`) and a one-line reason.
    init(status: String, reason: String) {
        var fields = [HeaderField(name: "Content-Type", value: "text/plain; charset=utf-8")]
        fields.add(name: "Content-Length", value: String(reason.utf8.count + 1))
        ProxyAnswerFields.add(to: &fields, via: true, cacheStatus: nil, close: true)
        self.answer = "HTTP/1.1 \(status)\r\n" + fields.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n\(reason)\n"
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            self.refuse(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.refuse(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(string: self.answer))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
    }
}
