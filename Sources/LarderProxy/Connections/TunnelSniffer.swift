import NIOCore

/// Looks at the first bytes of a `CONNECT` tunnel without consuming them: it holds every byte,
/// passes on a ``TunnelTraffic`` once ``TunnelTraffic/classify(_:)`` can tell, and hands the held
/// bytes to the next handler when it is removed, so whichever pipeline replaces it (TLS, an HTTP
/// decoder, a blind tunnel) sees the stream from its first byte.
///
/// Once it has told, it asks the socket for no more reads until it is removed: what it holds stays
/// one read's worth, however much the client sends while the connection decides.
final class TunnelSniffer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Any
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    /// The name it has in a pipeline.
    static let name = "tunnel-sniffer"

    private var held: ByteBuffer?
    private var told = false
    private var readPending = false
    /// The client finished sending while bytes were held: passed on after them.
    private var inputClosedPending = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        if self.held == nil {
            self.held = buffer
        } else {
            self.held?.writeBuffer(&buffer)
        }
        guard !self.told, let held = self.held, let traffic = TunnelTraffic.classify(held.readableBytesView) else { return }
        self.tell(traffic, context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case ChannelEvent.inputClosed = event, let held = self.held, held.readableBytes > 0 else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // No more bytes will come: too few to tell are not TLS or HTTP. The end follows the bytes.
        if !self.told {
            self.tell(.other, context: context)
        }
        self.inputClosedPending = true
    }

    private func tell(_ traffic: TunnelTraffic, context: ChannelHandlerContext) {
        self.told = true
        context.fireChannelRead(NIOAny(traffic))
        // The bytes may have come from the removed CONNECT decoder rather than a socket read:
        // the reader sees the verdict only with a read-complete.
        context.fireChannelReadComplete()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Nothing is passed on before the verdict, and that is followed by its own read-complete.
    }

    func read(context: ChannelHandlerContext) {
        if self.told {
            self.readPending = true
        } else {
            context.read()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let held = self.held, held.readableBytes > 0 {
            self.held = nil
            context.fireChannelRead(NIOAny(held))
            context.fireChannelReadComplete()
        }
        if self.inputClosedPending {
            self.inputClosedPending = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        if self.readPending {
            self.readPending = false
            context.read()
        }
    }
}
