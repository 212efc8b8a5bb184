import NIOCore
import NIOHTTP1

/// What a client connection delivers: HTTP parts, then raw bytes once it is a tunnel.
public enum ProxyInbound: Sendable {
    /// A decoded HTTP request part.
    case http(HTTPServerRequestPart)
    /// Bytes of a tunnel.
    case raw(ByteBuffer)
    /// What the client speaks on a `CONNECT` tunnel, told by its first bytes (after
    /// ``ProxyOutbound/sniffTunnel``); those bytes are kept for the pipeline chosen next.
    case sniffed(TunnelTraffic)
}

/// What is written to a client connection.
public enum ProxyOutbound: Sendable {
    /// An HTTP response part.
    case http(HTTPServerResponsePart)
    /// A body part sent from a stored body's file by `sendfile` (never through TLS, which must
    /// see the bytes): the task's answers from the cache, as the immediate path's. `completion`
    /// learns when it is written.
    case file(StoredBodyFile, completion: StoredBodyFile.Completion)
    /// Bytes of a tunnel.
    case raw(ByteBuffer)
    /// Remove the HTTP codec: every byte from now on is tunnel data. Bytes the client sent
    /// after its `CONNECT` request (or its WebSocket handshake) arrive as `.raw` (nothing is lost).
    case enterTunnelMode
    /// After a `CONNECT` answer: wait for the client's first bytes on the tunnel and tell what
    /// they are (``ProxyInbound/sniffed(_:)``), keeping them. One of ``startTLS(_:origin:)``,
    /// ``startHTTP`` or ``enterTunnelMode`` follows.
    case sniffTunnel
    /// Terminate TLS on a sniffed tunnel to `origin` and read HTTP inside it. The bytes sniffed
    /// (the ClientHello) go to the TLS handler.
    case startTLS(TLSHandlerFactory, origin: TunnelOrigin)
    /// Read plain HTTP on a sniffed tunnel, starting with the bytes sniffed.
    case startHTTP
}

/// Makes the TLS server handler for an intercepted connection, on the connection's event loop.
public struct TLSHandlerFactory: Sendable {
    /// Creates the handler.
    public let make: @Sendable () throws -> any ChannelHandler

    /// Wraps a handler constructor.
    public init(_ make: @escaping @Sendable () throws -> any ChannelHandler) {
        self.make = make
    }
}
