import NIOCore

/// The splicing of a client connection (in tunnel mode) with an upstream connection, for
/// `CONNECT` tunnels and WebSocket relays; `UpstreamConnector` opens the upstream side.
enum Tunnel {
    /// Copies bytes both ways until both sides have finished. The client side is the
    /// connection's own iterator (already in tunnel mode) and writer.
    static func splice(
        client inbound: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        clientOutbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    ) async throws {
        try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
            let fromUpstream = HandedOverIterator(upstreamInbound.makeAsyncIterator())
            try await self.splice(
                client: &inbound,
                clientOutbound: clientOutbound,
                nextFromUpstream: { try await fromUpstream.iterator.next() },
                upstreamOutbound: upstreamOutbound,
                wrap: { $0 }
            )
        }
    }

    /// Copies bytes both ways until both sides have finished: what `nextFromUpstream` returns to
    /// the client (nil: upstream is done), and the client's bytes, wrapped, to upstream.
    static func splice<UpstreamOutbound: Sendable>(
        client inbound: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        clientOutbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        nextFromUpstream: @escaping @Sendable () async throws -> ByteBuffer?,
        upstreamOutbound: NIOAsyncChannelOutboundWriter<UpstreamOutbound>,
        wrap: @escaping @Sendable (ByteBuffer) -> UpstreamOutbound
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while let buffer = try await nextFromUpstream() {
                    try await clientOutbound.write(.raw(buffer))
                }
                clientOutbound.finish()
            }
            while let part = try await inbound.next() {
                if case .raw(let buffer) = part {
                    try await upstreamOutbound.write(wrap(buffer))
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

/// An iterator handed to the one task that reads it from then on: the task that made it reads it
/// no more, so no two tasks ever use it at once.
final class HandedOverIterator<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    var iterator: Iterator

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }
}
