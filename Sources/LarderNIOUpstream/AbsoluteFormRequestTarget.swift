import NIOCore
import NIOHTTP1

/// Writes each request's target in absolute form (`GET http://origin/path`), on a connection to a
/// parent proxy that plain `http://` requests are forwarded through (``NIOUpstream``).
///
/// AsyncHTTPClient only tunnels through a proxy (`CONNECT`, which parents commonly allow to port
/// 443 alone), so for plain HTTP it connects to the parent as if it were the origin, with the
/// origin's `Host` field, and this handler, placed before its encoder, turns the origin-form
/// target into the absolute form a forwarding proxy expects (RFC 9112, section 3.2.2).
final class AbsoluteFormRequestTarget: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = Self.unwrapOutboundIn(data), head.uri.hasPrefix("/"), let host = head.headers.first(name: "host")
        else {
            context.write(data, promise: promise)
            return
        }
        head.uri = "http://" + host + head.uri
        context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
    }

    /// Puts the handler before the HTTP encoder of `channel`, an AsyncHTTPClient connection.
    static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let sync = channel.pipeline.syncOperations
            let encoder = try sync.context(handlerType: HTTPRequestEncoder.self)
            try sync.addHandler(AbsoluteFormRequestTarget(), position: .after(encoder.handler))
        }
    }
}
