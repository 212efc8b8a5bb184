import NIOCore
import NIOPosix
import Synchronization

/// An origin on 127.0.0.1 that answers each request with whatever bytes a test writes, framing
/// included, then ends the connection: for what ``TestOrigin`` will not send (a body ended by
/// the close, an oversized head).
final class RawOrigin: Sendable {
    /// Writes the answer to one request; the connection closes when it returns.
    typealias Answer = @Sendable (NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws -> Void

    private let channel: any Channel
    private let heads = Mutex<[String]>([])

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Starts listening; every request gets `answer`.
    static func start(_ answer: @escaping Answer) async throws -> RawOrigin {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        let origin = RawOrigin(channel: server.channel)
        Task {
            try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await origin.serve(connection, answer) }
                        }
                    } catch {}
                }
            }
        }
        return origin
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(self.channel.localAddress?.port ?? 0)\(path)"
    }

    /// The request heads received, oldest first.
    var requestHeads: [String] {
        self.heads.withLock { $0 }
    }

    func stop() async throws {
        try await self.channel.close()
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, _ answer: Answer) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head = ""
            var requests = inbound.makeAsyncIterator()
            while !head.contains("\r\n\r\n"), let chunk = try await requests.next() {
                head += String(buffer: chunk)
            }
            self.heads.withLock { $0.append(head) }
            try await answer(outbound)
            // Closing now would drop writes not yet flushed: half-close after them, and wait for the client to close.
            outbound.finish()
            while try await requests.next() != nil {}
        }
    }
}
