import NIOCore
import NIOPosix

/// A plain TCP tunnel between a client that sent `CONNECT` and the host it asked for.
enum Tunnel {
    /// Connects to `host:port`.
    static func connect(
        host: String,
        port: Int,
        timeout: Duration,
        eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                }
            }
    }

    /// Copies bytes both ways until both sides have finished. The client side is the
    /// connection's own iterator (already in tunnel mode) and writer.
    static func splice(
        client inbound: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        clientOutbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    ) async throws {
        try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await buffer in upstreamInbound {
                        try await clientOutbound.write(.raw(buffer))
                    }
                    clientOutbound.finish()
                }
                while let part = try await inbound.next() {
                    if case .raw(let buffer) = part {
                        try await upstreamOutbound.write(buffer)
                    }
                }
                upstreamOutbound.finish()
                // The client is done sending; give the upstream a moment to finish its answer.
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    throw CancellationError()
                }
                _ = try? await group.next()
                group.cancelAll()
            }
        }
    }
}
