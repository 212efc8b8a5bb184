import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A tiny forward proxy on 127.0.0.1 for tests of Larder under a parent: it records each request
/// line it is sent (`GET http://127.0.0.1:8000/a` or `CONNECT localhost:8443`), passes absolute-form
/// requests on to their origin (one per connection: it closes the connection when the origin's
/// answer ends) and opens `CONNECT` tunnels; or, after ``startFailing()``, answers everything
/// `502 Bad Gateway` as a parent that cannot reach the origin does.
public final class TestParentProxy: Sendable {
    private let channel: any Channel
    private let state = Mutex(State())

    private struct State {
        var requestLines: [String] = []
        var failing = false
        var open: [ObjectIdentifier: any Channel] = [:]
    }

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Starts listening on a free port of 127.0.0.1.
    public static func start() async throws -> TestParentProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        let proxy = TestParentProxy(channel: server.channel)
        Task {
            try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await proxy.serve(connection) }
                        }
                    } catch {}
                }
            }
        }
        return proxy
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String {
        "http://127.0.0.1:\(self.port)"
    }

    /// The port it listens on.
    public var port: Int {
        self.channel.localAddress?.port ?? 0
    }

    /// The request lines received, without the HTTP version, oldest first.
    public var requestLines: [String] {
        self.state.withLock { $0.requestLines }
    }

    /// From now on answers every request `502` instead of reaching the origin, and closes the
    /// connections open now (kept-alive ones and tunnels), so clients must ask again.
    public func startFailing() {
        let open = self.state.withLock { state in
            state.failing = true
            return Array(state.open.values)
        }
        for channel in open {
            channel.close(promise: nil)
        }
    }

    /// Stops listening.
    public func stop() async throws {
        try await self.channel.close()
    }

    private func serve(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let id = ObjectIdentifier(client.channel)
        self.state.withLock { $0.open[id] = client.channel }
        defer { _ = self.state.withLock { $0.open.removeValue(forKey: id) } }
        try? await client.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var head = ByteBuffer()
            var headEnd: Int?
            while headEnd == nil, var chunk = try await iterator.next() {
                head.writeBuffer(&chunk)
                headEnd = Self.endOfHead(head)
            }
            guard let headEnd else { return }
            let text = String(decoding: head.readableBytesView.prefix(headEnd), as: UTF8.self)
            var lines = text.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count == 3 else { return }
            let method = String(parts[0])
            let target = String(parts[1])
            let failing = self.state.withLock { state in
                state.requestLines.append("\(method) \(target)")
                return state.failing
            }
            if failing {
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
                return
            }
            let rest = head.getSlice(at: head.readerIndex + headEnd + 4, length: head.readableBytes - headEnd - 4) ?? ByteBuffer()
            let origin: (host: String, port: Int)
            var firstBytes: ByteBuffer
            if method == "CONNECT" {
                guard let authority = Self.hostAndPort(target, defaultPort: 443) else { return }
                origin = authority
                firstBytes = rest
            } else {
                // Absolute form to origin form: "GET http://host:port/path" becomes "GET /path".
                guard target.hasPrefix("http://") else { return }
                let afterScheme = target.dropFirst("http://".count)
                let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
                guard let authority = Self.hostAndPort(String(afterScheme[..<slash]), defaultPort: 80) else { return }
                origin = authority
                let path = afterScheme[slash...].isEmpty ? "/" : String(afterScheme[slash...])
                lines[0] = "\(method) \(path) \(parts[2])"
                lines = lines.filter { !$0.lowercased().hasPrefix("proxy-connection:") && !$0.lowercased().hasPrefix("connection:") }
                lines.append("Connection: close")
                firstBytes = ByteBuffer(string: lines.joined(separator: "\r\n") + "\r\n\r\n")
                var body = rest
                firstBytes.writeBuffer(&body)
            }
            let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            do {
                upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelOption(.allowRemoteHalfClosure, value: true)
                    .connect(host: origin.host, port: origin.port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        }
                    }
            } catch {
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
                return
            }
            let isTunnel = method == "CONNECT"
            if isTunnel {
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"))
            }
            try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
                if firstBytes.readableBytes > 0 {
                    try await upstreamOutbound.write(firstBytes)
                }
                let fromOrigin = HandedOver(upstreamInbound.makeAsyncIterator())
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while let chunk = try await fromOrigin.iterator.next() {
                            try await outbound.write(chunk)
                        }
                        outbound.finish()
                    }
                    if isTunnel {
                        // Only a tunnel carries the client's later bytes; a request is one per connection.
                        while let chunk = try await iterator.next() {
                            try await upstreamOutbound.write(chunk)
                        }
                        upstreamOutbound.finish()
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// An iterator read by one child task only, once its maker has handed it over.
    private final class HandedOver<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
        var iterator: Iterator
        init(_ iterator: Iterator) { self.iterator = iterator }
    }

    /// `host:port` (an IPv6 host in brackets) split, or nil.
    private static func hostAndPort(_ authority: String, defaultPort: Int) -> (host: String, port: Int)? {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, defaultPort) }
        guard let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        return (String(authority[..<colon]), port)
    }

    private static func endOfHead(_ buffer: ByteBuffer) -> Int? {
        let bytes = Array(buffer.readableBytesView)
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
