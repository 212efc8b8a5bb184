import NIOCore

/// The body of an ``UpstreamRequest``: fixed bytes or a stream that is sent while it is produced.
public struct UpstreamRequestBody: Sendable {
    /// Writes the body chunk by chunk through the function it is given, suspending while that function does.
    package typealias Pump = @Sendable (_ write: @Sendable (ByteBuffer) async throws -> Void) async throws -> Void

    package enum Content: Sendable {
        case bytes(ByteBuffer)
        case stream(Pump)
    }

    package let content: Content

    /// The body length in bytes when known up front; `nil` sends the body with chunked transfer-encoding.
    public let length: Int64?

    private init(content: Content, length: Int64?) {
        self.content = content
        self.length = length
    }

    /// A body of the readable bytes of `buffer`.
    public static func bytes(_ buffer: ByteBuffer) -> UpstreamRequestBody {
        UpstreamRequestBody(content: .bytes(buffer), length: Int64(buffer.readableBytes))
    }

    /// A body read from `chunks` while the request is sent, at the pace upstream accepts it.
    ///
    /// The sequence is iterated once, so a request with a stream body cannot be retried. When `length` is given,
    /// the sequence must produce exactly that many bytes, otherwise the transfer fails with
    /// ``UpstreamError/Kind/invalidRequest``.
    public static func stream<S: AsyncSequence & Sendable>(
        _ chunks: S,
        length: Int64?
    ) -> UpstreamRequestBody where S.Element == ByteBuffer {
        UpstreamRequestBody(
            content: .stream({ write in
                for try await chunk in chunks {
                    try await write(chunk)
                }
            }),
            length: length
        )
    }
}
