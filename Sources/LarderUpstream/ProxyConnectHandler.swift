import Foundation
import LarderHTTP
import NIOCore

/// Opens a tunnel through a parent proxy on a fresh connection to it: sends `CONNECT host:port`
/// once the connection is up and holds the handlers behind it back (their `channelActive`, so a
/// TLS handshake waits, and their writes) until the parent answers. A `2xx` succeeds `established`;
/// then the handlers behind see the connection become active, their writes go out, bytes that
/// followed the answer are passed on, and this handler leaves the pipeline.
///
/// Any other answer, the connection closing first, or no answer by `deadline` fails `established`
/// with an ``UpstreamError`` (``UpstreamError/Kind/connectionRefused`` for a refusal, as the
/// origin refusing would be: the caller's fallbacks and back-off apply) and closes the connection.
final class ProxyConnectHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// An answer head longer than this is not a proxy's.
    private static let maximumHeadLength = 16 * 1024

    let established: EventLoopPromise<Void>
    private let parent: ProxyEndpoint
    /// `host:port` of the origin, an IPv6 host in brackets.
    private let target: String
    private let deadline: NIODeadline
    private let timeout: Duration
    /// The origin's URL, for errors.
    private let url: String
    private var received: ByteBuffer?
    private var heldWrites: [(data: NIOAny, promise: EventLoopPromise<Void>?)] = []
    private var timer: Scheduled<Void>?
    private var isOpen = false
    private var isDone = false

    init(parent: ProxyEndpoint, host: String, port: Int, established: EventLoopPromise<Void>, deadline: NIODeadline, timeout: Duration) {
        self.parent = parent
        self.target = "\(HTTPURL.bracketed(host: host)):\(port)"
        self.established = established
        self.deadline = deadline
        self.timeout = timeout
        self.url = "https://\(self.target)"
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: self.deadline) {
            self.fail(
                .connectTimeout, "the upstream proxy \(self.parent) did not open the tunnel within the connect timeout (\(self.timeout))")
            context.close(promise: nil)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = "CONNECT \(self.target) HTTP/1.1\r\nHost: \(self.target)\r\n"
        if let authorization = self.parent.proxyAuthorization {
            head += "Proxy-Authorization: \(authorization)\r\n"
        }
        head += "\r\n"
        context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(string: head))), promise: nil)
        // Not passed on: the handlers behind start once the tunnel is open.
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.isOpen else {
            context.fireChannelRead(data)
            return
        }
        var bytes = self.unwrapInboundIn(data)
        if self.received == nil {
            self.received = bytes
        } else {
            self.received!.writeBuffer(&bytes)
        }
        guard let buffer = self.received else { return }
        let view = buffer.readableBytesView
        guard let end = Self.endOfHead(view) else {
            if buffer.readableBytes > Self.maximumHeadLength {
                self.fail(.other(0), "the upstream proxy \(self.parent) sent an answer to CONNECT too long to be one")
                context.close(promise: nil)
            }
            return
        }
        let head = String(decoding: view[view.startIndex..<end], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            self.fail(
                .connectionReset, "the upstream proxy \(self.parent) did not answer CONNECT with HTTP (\(statusLine.debugDescription))")
            context.close(promise: nil)
            return
        }
        guard (200..<300).contains(status) else {
            self.fail(
                .connectionRefused, "the upstream proxy \(self.parent) answered CONNECT \(self.target) with \(statusLine.dropFirst(9))")
            context.close(promise: nil)
            return
        }
        self.isOpen = true
        self.finish(.success(()))
        var rest = buffer
        rest.moveReaderIndex(forwardBy: end + 4 - view.startIndex)
        self.received = nil
        context.fireChannelActive()
        for write in self.heldWrites {
            context.write(write.data, promise: write.promise)
        }
        self.heldWrites = []
        context.flush()
        if rest.readableBytes > 0 {
            context.fireChannelRead(self.wrapInboundOut(rest))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if self.isOpen {
            context.write(data, promise: promise)
        } else {
            self.heldWrites.append((data, promise))
        }
    }

    func flush(context: ChannelHandlerContext) {
        if self.isOpen {
            context.flush()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(.connectionReset, "the connection to the upstream proxy \(self.parent) failed: \(error)")
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(.connectionReset, "the upstream proxy \(self.parent) closed the connection before opening the tunnel")
        for write in self.heldWrites {
            write.promise?.fail(ChannelError.ioOnClosedChannel)
        }
        self.heldWrites = []
        context.fireChannelInactive()
    }

    /// The offset of the `\r\n\r\n` that ends the head, if it has arrived.
    private static func endOfHead(_ view: ByteBufferView) -> Int? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var index = view.startIndex
        while index + 4 <= view.endIndex {
            if view[index] == 13, view[index..<(index + 4)].elementsEqual(terminator) {
                return index
            }
            index += 1
        }
        return nil
    }

    private func fail(_ kind: UpstreamError.Kind, _ message: String) {
        self.finish(.failure(UpstreamError(kind: kind, message: message, url: self.url, isConnectFailure: kind != .connectionReset)))
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard !self.isDone else { return }
        self.isDone = true
        self.timer?.cancel()
        self.established.completeWith(result)
    }
}
