import NIOCore
import NIOHTTP1

/// What is written to an upstream WebSocket connection: the handshake through the request
/// encoder, then raw bytes once the codec is removed.
public enum WebSocketUpstreamOutbound: Sendable {
    /// A part of the handshake request.
    case http(HTTPClientRequestPart)
    /// Bytes of the stream.
    case raw(ByteBuffer)
    /// Remove the HTTP codec after a `101`: every byte from now on is the stream's, starting with
    /// any that came with the answer.
    case switchToStream
}
