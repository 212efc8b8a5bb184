import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A WebSocket client that goes through a forward proxy the way a browser does: `ws://` as an
/// absolute-form `GET` with `Upgrade: websocket` (or, as Chromium sends it, as a `CONNECT` with the
/// handshake inside), `wss://` as a `CONNECT`, TLS inside it (trusting a given CA), then the
/// handshake. Frames are written and parsed by hand (RFC 6455 section 5), so
/// a test sees exactly the bytes that crossed the proxy.
public final class WebSocketTestClient: Sendable {
    /// The `Sec-WebSocket-Key` sent; RFC 6455's own example, so the expected accept value is
    /// ``expectedAccept``.
    public static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    /// The `Sec-WebSocket-Accept` a server must answer to ``key``.
    public static let expectedAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private let channel: any Channel
    private let received: ReceivedBytes
    /// The status of the handshake's answer.
    public let status: Int
    /// The answer's head as text (status line and fields).
    public let responseHead: String

    private init(channel: any Channel, received: ReceivedBytes, status: Int, responseHead: String) {
        self.channel = channel
        self.received = received
        self.status = status
        self.responseHead = responseHead
    }

    /// Opens a WebSocket to `url` (`http://` or `https://`, the form a proxy is asked for) through
    /// the proxy on `127.0.0.1:proxyPort`.
    ///
    /// - Parameters:
    ///   - caPath: The CA (PEM) to trust for an `https` URL: the proxy's own, which intercepts it.
    ///   - protocols: Subprotocols to offer in `Sec-WebSocket-Protocol`.
    ///   - tunnelled: Send an `http` URL's handshake inside a `CONNECT` tunnel, origin-form, as
    ///     Chromium does (an `https` URL always goes so).
    public static func connect(
        through proxyPort: Int,
        to url: String,
        trusting caPath: String? = nil,
        protocols: [String] = [],
        tunnelled: Bool = false
    ) async throws -> WebSocketTestClient {
        guard let schemeEnd = url.range(of: "://") else { throw WebSocketTestError("not an absolute URL: \(url)") }
        let isTLS = url.hasPrefix("https")
        let rest = url[schemeEnd.upperBound...]
        let authority = String(rest.prefix { $0 != "/" })
        let path = String(rest.dropFirst(authority.count)).isEmpty ? "/" : String(rest.dropFirst(authority.count))
        let host = String(authority.split(separator: ":").first ?? "")

        let received = ReceivedBytes()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ReceivingHandler(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: proxyPort)
            .get()

        var target = url
        if isTLS || tunnelled {
            try await channel.writeAndFlush(ByteBuffer(string: "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")).get()
            let (connectHead, _) = try await received.head()
            guard connectHead.hasPrefix("HTTP/1.1 200") else {
                throw WebSocketTestError("CONNECT was answered: \(connectHead)")
            }
            target = path
        }
        if isTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caPath {
                configuration.trustRoots = .file(caPath)
            }
            let context = try NIOSSLContext(configuration: configuration)
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(
                    try NIOSSLClientHandler(context: context, serverHostname: host), position: .first)
            }.get()
        }

        var request = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty {
            request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n"
        }
        request += "\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        let (head, status) = try await received.head()
        return WebSocketTestClient(channel: channel, received: received, status: status, responseHead: head)
    }

    /// The value of the answer's field `name` (case-insensitive), if it has one.
    public func header(_ name: String) -> String? {
        for line in self.responseHead.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Sends a masked text frame.
    public func sendText(_ text: String) async throws {
        try await self.send(opcode: 0x1, payload: Array(text.utf8))
    }

    /// Sends a masked close frame with status 1000.
    public func sendClose() async throws {
        try await self.send(opcode: 0x8, payload: [0x03, 0xE8])
    }

    /// The next frame's opcode and payload, waiting up to 20 seconds.
    public func receiveFrame() async throws -> (opcode: UInt8, payload: [UInt8]) {
        try await self.received.frame()
    }

    /// The next frame's payload as text; fails when it is not a text frame.
    public func receiveText() async throws -> String {
        let frame = try await self.receiveFrame()
        guard frame.opcode == 0x1 else {
            throw WebSocketTestError("expected a text frame, got opcode \(frame.opcode)")
        }
        return String(decoding: frame.payload, as: UTF8.self)
    }

    /// Everything received after the head until the connection closes (a refused handshake's body).
    public func readToEnd() async throws -> String {
        String(decoding: try await self.received.untilClosed(), as: UTF8.self)
    }

    /// Whether the connection has been closed by the other side, waiting up to 20 seconds for it.
    public func waitForClose() async -> Bool {
        (try? await self.received.untilClosed()) != nil
    }

    /// Closes the connection.
    public func close() async {
        try? await self.channel.close()
    }

    private func send(opcode: UInt8, payload: [UInt8]) async throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try await self.channel.writeAndFlush(ByteBuffer(bytes: frame)).get()
    }
}

/// What a ``WebSocketTestClient`` did not expect.
public struct WebSocketTestError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Bytes received so far, read by polling (one test reads them at a time).
private final class ReceivedBytes: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    private static let deadline = Duration.seconds(20)

    func append(_ buffer: ByteBuffer) {
        self.state.withLock { $0.bytes += buffer.readableBytesView }
    }

    func markClosed() {
        self.state.withLock { $0.isClosed = true }
    }

    /// Takes an HTTP head (through its blank line) and returns it with its status code.
    func head() async throws -> (String, Int) {
        let head = try await self.take { bytes in
            guard let end = Self.blankLine(in: bytes) else { return nil }
            return end
        }
        let text = String(decoding: head, as: UTF8.self)
        let statusCode = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (text, statusCode)
    }

    /// Takes one whole frame.
    func frame() async throws -> (opcode: UInt8, payload: [UInt8]) {
        let bytes = try await self.take(Self.frameLength(in:))
        var index = 2
        var length = Int(bytes[1] & 0x7F)
        if length == 126 {
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            index = 4
        } else if length == 127 {
            length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[2 + $1]) }
            index = 10
        }
        var payload = Array(bytes[index...])
        if bytes[1] & 0x80 != 0 {
            let mask = Array(payload[0..<4])
            payload = payload.dropFirst(4).enumerated().map { $0.element ^ mask[$0.offset % 4] }
        }
        return (bytes[0] & 0x0F, payload)
    }

    /// Everything left once the connection has closed.
    func untilClosed() async throws -> [UInt8] {
        try await self.take({ _ in nil }, orWhenClosed: true)
    }

    /// Waits until `length` finds a complete unit at the start of the bytes, then removes and
    /// returns it. With `orWhenClosed`, returns whatever is left once the connection closes.
    private func take(_ length: @escaping @Sendable ([UInt8]) -> Int?, orWhenClosed: Bool = false) async throws -> [UInt8] {
        let start = ContinuousClock.now
        while true {
            let result: [UInt8]? = try self.state.withLock { state in
                if let count = length(state.bytes) {
                    defer { state.bytes.removeFirst(count) }
                    return Array(state.bytes[0..<count])
                }
                if state.isClosed {
                    if orWhenClosed {
                        defer { state.bytes.removeAll() }
                        return state.bytes
                    }
                    throw WebSocketTestError("the connection closed; \(state.bytes.count) bytes left unread")
                }
                return nil
            }
            if let result {
                return result
            }
            guard ContinuousClock.now - start < Self.deadline else {
                throw WebSocketTestError("nothing complete arrived within \(Self.deadline)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private static func blankLine(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    private static func frameLength(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var header = 2
        var length = Int(bytes[1] & 0x7F)
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[2 + $1]) }
            header = 10
        }
        if bytes[1] & 0x80 != 0 {
            header += 4
        }
        return bytes.count >= header + length ? header + length : nil
    }
}

/// Hands received bytes to a ``ReceivedBytes``.
private final class ReceivingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let received: ReceivedBytes

    init(received: ReceivedBytes) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.received.append(self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.received.markClosed()
        context.fireChannelInactive()
    }
}
