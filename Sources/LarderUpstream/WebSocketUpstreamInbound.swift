import NIOCore
import NIOHTTP1

/// What an upstream WebSocket connection delivers: the handshake's HTTP answer, then raw bytes
/// once the response decoder is removed.
public enum WebSocketUpstreamInbound: Sendable {
    /// A decoded part of the handshake's answer.
    case http(HTTPClientResponsePart)
    /// Bytes of the stream.
    case raw(ByteBuffer)
}
