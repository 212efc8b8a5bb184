import NIOCore
import NIOTLS

/// Reports the end of a connection's TLS handshake (it sits right behind the TLS handler): succeeds
/// `handshake` once it completes and leaves the pipeline; fails it with an ``UpstreamError`` of kind
/// ``UpstreamError/Kind/tls`` when the handshake fails or the connection closes first, or of kind
/// ``UpstreamError/Kind/connectTimeout`` at `deadline` (then it closes the connection), so a server that
/// accepts the connection but never answers the handshake holds nobody for longer than a connect may take.
final class TLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    let handshake: EventLoopPromise<Void>
    private let deadline: NIODeadline
    private let timeout: Duration
    /// The server's URL, for errors.
    private let url: String
    private var timer: Scheduled<Void>?
    private var isDone = false

    init(handshake: EventLoopPromise<Void>, deadline: NIODeadline, timeout: Duration, url: String) {
        self.handshake = handshake
        self.deadline = deadline
        self.timeout = timeout
        self.url = url
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: self.deadline) {
            self.fail(.connectTimeout, "no TLS handshake within the connect timeout (\(self.timeout))")
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent {
            self.finish(.success(()))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(.tls, "\(error)")
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(.tls, "the server closed the connection during the TLS handshake")
        context.fireChannelInactive()
    }

    private func fail(_ kind: UpstreamError.Kind, _ message: String) {
        self.finish(.failure(UpstreamError(kind: kind, message: message, url: self.url)))
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard !self.isDone else { return }
        self.isDone = true
        self.timer?.cancel()
        self.handshake.completeWith(result)
    }
}
