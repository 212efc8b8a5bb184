import NIOCore

/// Connects a response body's back-pressure signals to the client that fills it: the libcurl
/// client resumes or cancels its transfer on its own thread.
package struct UpstreamBodyProducerDelegate: NIOAsyncSequenceProducerDelegate {
    private let resume: @Sendable () -> Void
    private let consumerGone: @Sendable () -> Void

    /// A delegate calling `resume` when the consumer wants more and `consumerGone` when it went away.
    package init(resume: @escaping @Sendable () -> Void, consumerGone: @escaping @Sendable () -> Void) {
        self.resume = resume
        self.consumerGone = consumerGone
    }

    /// The consumer drained the buffer below the low watermark: the client may deliver body bytes again.
    package func produceMore() {
        self.resume()
    }

    /// The consumer went away (or read to the end, in which case the transfer is already over and this does nothing).
    package func didTerminate() {
        self.consumerGone()
    }
}
