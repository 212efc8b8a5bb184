import NIOCore

/// The body of an ``UpstreamResponse``: a single-consumer async sequence of chunks as they arrive.
///
/// Iterate it once. It throws ``UpstreamError`` when the transfer fails or the body ends short
/// (``UpstreamError/Kind/truncatedBody``). A body reads from the network only as fast as it is
/// consumed, and dropping it (or its iterator) before the end cancels the transfer.
public struct UpstreamBody: AsyncSequence, Sendable {
    /// A chunk of body bytes.
    public typealias Element = ByteBuffer

    /// Body sequences throw ``UpstreamError`` (or `CancellationError` when the consuming task is cancelled).
    public typealias Failure = any Error

    /// The producer a client with its own transfer loop fills (the libcurl client): iterating it
    /// costs no existential call per chunk, and its delegate carries back-pressure to the client.
    package typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer,
        any Error,
        NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark,
        UpstreamBodyProducerDelegate
    >

    private enum Storage: Sendable {
        case producer(Producer)
        case other(@Sendable () -> any BodyChunkIterator)
    }

    private let storage: Storage

    /// The bytes the client has handed over so far, for a body from a ``Producer``.
    package let receivedBytes: BodyByteCounter?

    /// A body read from `producer`, whose client counts what it hands over in `receivedBytes`.
    package init(producer: Producer, receivedBytes: BodyByteCounter) {
        self.storage = .producer(producer)
        self.receivedBytes = receivedBytes
    }

    /// A body that yields the chunks of `chunks`, for ``Upstream`` implementations without a ``Producer``.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == ByteBuffer {
        self.storage = .other({ ErasedBodyChunkIterator(chunks.makeAsyncIterator()) })
        self.receivedBytes = nil
    }

    /// A body of the readable bytes of `buffer` (no chunk at all when it is empty).
    public static func bytes(_ buffer: ByteBuffer) -> UpstreamBody {
        UpstreamBody((buffer.readableBytes == 0 ? [] : [buffer]).async)
    }

    /// An empty body.
    public static var empty: UpstreamBody {
        UpstreamBody([ByteBuffer]().async)
    }

    /// Creates the iterator; call once.
    public func makeAsyncIterator() -> AsyncIterator {
        switch self.storage {
        case .producer(let producer):
            return AsyncIterator(base: .producer(producer.makeAsyncIterator()))
        case .other(let makeIterator):
            return AsyncIterator(base: .other(makeIterator()))
        }
    }

    /// Iterates an ``UpstreamBody``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate enum Base {
            case producer(Producer.AsyncIterator)
            case other(any BodyChunkIterator)
        }

        fileprivate var base: Base

        /// The next chunk, or `nil` at the end of a complete body.
        public mutating func next() async throws -> ByteBuffer? {
            switch self.base {
            case .producer(let iterator):
                return try await iterator.next()
            case .other(let iterator):
                return try await iterator.next()
            }
        }
    }
}

/// A type-erased iterator over body chunks (a class, so ``UpstreamBody/AsyncIterator`` need not know its type).
protocol BodyChunkIterator: AnyObject {
    func next() async throws -> ByteBuffer?
}

private final class ErasedBodyChunkIterator<Base: AsyncIteratorProtocol>: BodyChunkIterator
where Base.Element == ByteBuffer {
    private var base: Base

    init(_ base: Base) {
        self.base = base
    }

    func next() async throws -> ByteBuffer? {
        try await self.base.next()
    }
}

/// Wraps an array as an async sequence, for the fixed bodies of ``UpstreamBody/bytes(_:)``.
private struct ArrayAsyncSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let chunks: [ByteBuffer]

    func makeAsyncIterator() -> Iterator {
        Iterator(base: self.chunks.makeIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[ByteBuffer]>

        mutating func next() async -> ByteBuffer? {
            self.base.next()
        }
    }
}

extension Array where Element == ByteBuffer {
    fileprivate var async: ArrayAsyncSequence {
        ArrayAsyncSequence(chunks: self)
    }
}
