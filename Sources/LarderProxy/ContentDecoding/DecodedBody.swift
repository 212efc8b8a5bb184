import LarderHTTP
import NIOCore

/// A coded body, decoded while it is read: made by ``_Concurrency/AsyncSequence/decoded(_:)``.
///
/// Each iteration decodes with its own ``ContentDecoder``, so pieces are at most
/// ``ContentDecoder/maximumPieceLength`` bytes. Iteration throws the base's errors and
/// ``ContentDecodingError`` (corrupt data as it is met, a truncated stream at the end).
public struct DecodedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    /// Decoded bytes.
    public typealias Element = ByteBuffer

    let base: Base
    let coding: ContentCoding

    /// An iterator over the decoded pieces.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), decoder: ContentDecoder(coding: self.coding))
    }

    /// Reads a chunk of the base only when the decoder has nothing left from the previous one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let decoder: ContentDecoder
        var ended = false

        /// The next decoded piece, or nil after the whole body was decoded and checked complete.
        public mutating func next() async throws -> ByteBuffer? {
            while !self.ended {
                if let piece = try self.decoder.next() {
                    return piece
                }
                if let chunk = try await self.base.next() {
                    self.decoder.feed(chunk)
                } else {
                    self.ended = true
                    try self.decoder.finish()
                }
            }
            return nil
        }
    }
}

extension DecodedBody: Sendable where Base: Sendable {}

extension AsyncSequence where Element == ByteBuffer {
    /// This body, decoded from `coding` as it is read.
    ///
    /// ```swift
    /// for try await piece in chunks.decoded(.gzip) { try await writer.body(piece) }
    /// ```
    public func decoded(_ coding: ContentCoding) -> DecodedBody<Self> {
        DecodedBody(base: self, coding: coding)
    }
}
