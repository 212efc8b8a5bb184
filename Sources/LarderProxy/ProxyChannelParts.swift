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
}
