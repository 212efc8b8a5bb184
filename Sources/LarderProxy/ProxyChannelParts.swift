import NIOCore
import NIOHTTP1

/// What a client connection delivers: HTTP parts, then raw bytes once it is a tunnel.
public enum ProxyInbound: Sendable {
    /// A decoded HTTP request part.
    case http(HTTPServerRequestPart)
    /// Bytes of a tunnel.
    case raw(ByteBuffer)
}

/// What is written to a client connection.
public enum ProxyOutbound: Sendable {
    /// An HTTP response part.
    case http(HTTPServerResponsePart)
    /// Bytes of a tunnel.
    case raw(ByteBuffer)
    /// Remove the HTTP codec: every byte from now on is tunnel data. Bytes the client sent
    /// after its `CONNECT` request arrive as `.raw` (nothing is lost).
    case enterTunnelMode
    /// Terminate TLS on this connection (after a `CONNECT` answer) and read HTTP inside it.
    /// Bytes the client sent after its `CONNECT` (its ClientHello) go to the TLS handler.
    case startTLS(TLSHandlerFactory)
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
