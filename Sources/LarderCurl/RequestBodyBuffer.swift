// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderUpstream
    import NIOCore
    import Synchronization

    /// Carries request body bytes from the task that produces them to curl's read callback on the curl thread.
    ///
    /// It holds at most about ``limit`` bytes: the producing task waits in ``write(_:)`` until curl has taken enough.
    /// When curl asks for bytes and none are buffered, it is told to pause sending, and ``onReadable`` is called once
    /// there is something to read again so the transfer can be unpaused.
    ///
    /// The first ``replayLimit`` bytes curl has taken are kept, so a small streamed body (a form post, a JSON call) can
    /// be sent again when curl finds its kept-alive connection dead and retries on a new one.
    final class RequestBodyBuffer: Sendable {
        /// What the read callback should tell curl.
        enum ReadResult: Equatable {
            /// This many bytes were copied.
            case bytes(Int)
            /// The body is complete.
            case end
            /// Nothing buffered yet: pause sending until ``RequestBodyBuffer/onReadable`` is called.
            case wait
            /// The body failed (see ``RequestBodyBuffer/failure``): abort the transfer.
            case failed
        }

        private struct State {
            var chunks = CircularBuffer<ByteBuffer>()
            var bufferedBytes = 0
            var writtenBytes: Int64 = 0
            var isFinished = false
            var failure: UpstreamError?
            var isClosed = false
            var readerIsWaiting = false
            var waitingWriter: CheckedContinuation<Void, any Error>?
            /// Bytes curl has taken, kept for a resend while they fit in the replay limit.
            var taken = CircularBuffer<ByteBuffer>()
            var takenBytes = 0
            /// Whether ``taken`` still holds everything curl took.
            var isReplayable = true

            /// Keeps bytes curl took for a resend, or gives up on resending once they pass `limit`.
            mutating func keepTaken(_ slice: ByteBuffer, limit: Int) {
                guard self.isReplayable else {
                    return
                }
                self.takenBytes += slice.readableBytes
                if self.takenBytes > limit {
                    self.isReplayable = false
                    self.taken.removeAll()
                    self.takenBytes = 0
                } else {
                    self.taken.append(slice)
                }
            }

            /// Whether curl is paused waiting for this buffer, clearing the mark: the caller then wakes it.
            mutating func takeWaitingReader() -> Bool {
                defer { self.readerIsWaiting = false }
                return self.readerIsWaiting
            }
        }

        private let state: Mutex<State>
        /// The whole body, when it was given up front, so it can be sent again.
        private let completeBody: ByteBuffer?
        private let declaredLength: Int64?
        private let limit: Int
        private let replayLimit: Int
        private let url: String
        private let onReadable: @Sendable () -> Void

        /// A buffer fed by a streamed body through ``write(_:)`` and ``finish()``.
        ///
        /// - Parameters:
        ///   - declaredLength: The length the caller promised; a body that turns out longer or shorter fails.
        ///   - limit: How many bytes may wait for curl before ``write(_:)`` suspends.
        ///   - replayLimit: How many bytes curl has taken may be kept to send the body again.
        ///   - url: The request URL, for error messages.
        ///   - onReadable: Called (from any thread) when bytes or the end arrive while curl is paused waiting for them.
        convenience init(
            declaredLength: Int64?,
            limit: Int,
            replayLimit: Int,
            url: String,
            onReadable: @escaping @Sendable () -> Void
        ) {
            self.init(
                completeBody: nil, declaredLength: declaredLength, limit: limit, replayLimit: replayLimit, url: url,
                onReadable: onReadable)
        }

        /// A buffer that already holds the whole body (`UpstreamRequestBody.bytes`), so nothing ever waits on it and it
        /// can be rewound.
        convenience init(completeBody: ByteBuffer, url: String) {
            self.init(
                completeBody: completeBody, declaredLength: nil, limit: Int.max, replayLimit: 0, url: url, onReadable: {})
            _ = self.rewind()
        }

        private init(
            completeBody: ByteBuffer?,
            declaredLength: Int64?,
            limit: Int,
            replayLimit: Int,
            url: String,
            onReadable: @escaping @Sendable () -> Void
        ) {
            self.state = Mutex(State())
            self.completeBody = completeBody
            self.declaredLength = declaredLength
            self.limit = limit
            self.replayLimit = replayLimit
            self.url = url
            self.onReadable = onReadable
        }

        /// Starts the body over, for curl to send it again on a new connection.
        ///
        /// - Returns: `false` for a streamed body of which curl has taken more than the replay limit: it cannot be read
        ///   twice.
        func rewind() -> Bool {
            if let completeBody = self.completeBody {
                self.state.withLock { state in
                    state.chunks.removeAll()
                    if completeBody.readableBytes > 0 {
                        state.chunks.append(completeBody)
                    }
                    state.bufferedBytes = completeBody.readableBytes
                    state.writtenBytes = Int64(completeBody.readableBytes)
                    state.isFinished = true
                }
                return true
            }
            return self.state.withLock { state in
                guard state.isReplayable, !state.isClosed else {
                    return false
                }
                // The taken bytes go back in front of what is still waiting, in their order.
                while let last = state.taken.popLast() {
                    state.chunks.prepend(last)
                }
                state.bufferedBytes += state.takenBytes
                state.takenBytes = 0
                return true
            }
        }

        /// Why the body failed, if it did.
        var failure: UpstreamError? {
            self.state.withLock { $0.failure }
        }

        /// Adds a chunk, then waits while more than ``limit`` bytes are buffered.
        ///
        /// - Throws: `CancellationError` once the transfer is over, or ``UpstreamError`` when the body exceeds its
        ///   declared length.
        func write(_ chunk: ByteBuffer) async throws {
            let (mustWait, notify, error): (Bool, Bool, (any Error)?) = self.state.withLock { state in
                if state.isClosed {
                    return (false, false, CancellationError())
                }
                if state.failure != nil || state.isFinished {
                    return (false, false, CancellationError())
                }
                state.writtenBytes += Int64(chunk.readableBytes)
                if let declaredLength = self.declaredLength, state.writtenBytes > declaredLength {
                    let failure = UpstreamError(
                        kind: .invalidRequest,
                        message: "the request body is longer than its declared length of \(declaredLength) bytes",
                        url: self.url
                    )
                    state.failure = failure
                    return (false, state.takeWaitingReader(), failure)
                }
                if chunk.readableBytes > 0 {
                    state.chunks.append(chunk)
                    state.bufferedBytes += chunk.readableBytes
                }
                return (state.bufferedBytes >= self.limit, state.takeWaitingReader(), nil)
            }
            if notify {
                self.onReadable()
            }
            if let error {
                throw error
            }
            guard mustWait else {
                return
            }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumption: Result<Void, any Error>? = self.state.withLock { state in
                    if state.isClosed {
                        return .failure(CancellationError())
                    }
                    if state.bufferedBytes < self.limit {
                        return .success(())
                    }
                    state.waitingWriter = continuation
                    return nil
                }
                if let resumption {
                    continuation.resume(with: resumption)
                }
            }
        }

        /// Marks the end of the body.
        func finish() {
            let notify = self.state.withLock { state -> Bool in
                guard !state.isClosed, !state.isFinished, state.failure == nil else {
                    return false
                }
                if let declaredLength = self.declaredLength, state.writtenBytes < declaredLength {
                    state.failure = UpstreamError(
                        kind: .invalidRequest,
                        message:
                            "the request body ended after \(state.writtenBytes) of its declared \(declaredLength) bytes",
                        url: self.url
                    )
                } else {
                    state.isFinished = true
                }
                return state.takeWaitingReader()
            }
            if notify {
                self.onReadable()
            }
        }

        /// Fails the body because producing it threw `error`.
        func fail(_ error: any Error) {
            let notify = self.state.withLock { state -> Bool in
                guard !state.isClosed, state.failure == nil else {
                    return false
                }
                state.failure = UpstreamError(
                    kind: .requestBodyFailed,
                    message: "reading the request body failed: \(error)",
                    url: self.url
                )
                return state.takeWaitingReader()
            }
            if notify {
                self.onReadable()
            }
        }

        /// Ends the buffer because the transfer is over: drops buffered bytes and fails a waiting ``write(_:)``.
        func close() {
            let writer = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                state.isClosed = true
                state.chunks.removeAll()
                state.bufferedBytes = 0
                state.taken.removeAll()
                state.takenBytes = 0
                defer { state.waitingWriter = nil }
                return state.waitingWriter
            }
            writer?.resume(throwing: CancellationError())
        }

        /// Copies buffered bytes into `destination`; called by curl's read callback.
        func read(into destination: UnsafeMutableRawBufferPointer) -> ReadResult {
            let (result, writer) = self.state.withLock {
                state -> (ReadResult, CheckedContinuation<Void, any Error>?) in
                if state.failure != nil {
                    return (.failed, nil)
                }
                if state.chunks.isEmpty {
                    if state.isFinished {
                        return (.end, nil)
                    }
                    state.readerIsWaiting = true
                    return (.wait, nil)
                }
                var copied = 0
                while copied < destination.count, let first = state.chunks.first {
                    let count = min(first.readableBytes, destination.count - copied)
                    first.withUnsafeReadableBytes { source in
                        UnsafeMutableRawBufferPointer(rebasing: destination[copied..<(copied + count)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
                    }
                    copied += count
                    state.keepTaken(first.getSlice(at: first.readerIndex, length: count)!, limit: self.replayLimit)
                    if count == first.readableBytes {
                        state.chunks.removeFirst()
                    } else {
                        state.chunks[state.chunks.startIndex].moveReaderIndex(forwardBy: count)
                    }
                }
                state.bufferedBytes -= copied
                guard state.bufferedBytes < self.limit, let writer = state.waitingWriter else {
                    return (.bytes(copied), nil)
                }
                state.waitingWriter = nil
                return (.bytes(copied), writer)
            }
            writer?.resume()
            return result
        }
    }
#endif
