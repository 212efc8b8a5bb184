import NIOCore
import NIOPosix
import Synchronization

/// A TCP server on 127.0.0.1 that speaks neither HTTP nor TLS: it writes back every byte it
/// receives. For tests of blind tunnels; it counts the connections it accepts, so a test can tell
/// that a refused tunnel never reached it.
public final class TCPEchoServer: Sendable {
    private let channel: any Channel
    private let accepted: Counter

    private init(channel: any Channel, accepted: Counter) {
        self.channel = channel
        self.accepted = accepted
    }

    /// Starts listening on a free port of 127.0.0.1.
    public static func start() async throws -> TCPEchoServer {
        let accepted = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                accepted.value.withLock { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Echo())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TCPEchoServer(channel: channel, accepted: accepted)
    }

    /// The port it listens on.
    public var port: Int {
        self.channel.localAddress?.port ?? 0
    }

    /// How many connections it has accepted.
    public var connectionCount: Int {
        self.accepted.value.withLock { $0 }
    }

    /// Stops listening.
    public func stop() async throws {
        try await self.channel.close()
    }

    private final class Counter: Sendable {
        let value = Mutex(0)
    }

    private final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event {
                context.close(promise: nil)
            }
        }
    }
}
