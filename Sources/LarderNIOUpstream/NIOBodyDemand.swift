import LarderUpstream
import NIOCore
import Synchronization

/// Connects a ``NIOUpstream`` response body's back-pressure signals to its transfer: the
/// transfer waits here while the consumer's buffer is full, and the consumer going away cancels it.
final class NIOBodyDemand: NIOAsyncSequenceProducerDelegate, Sendable {
    private struct State {
        /// More was asked for while the transfer was not waiting.
        var wanted = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let transfer: NIOTransfer
    private let state = Mutex(State())

    init(transfer: NIOTransfer) {
        self.transfer = transfer
    }

    /// Returns once the consumer wants more, or the waiting task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = self.state.withLock { state in
                    guard !state.wanted else {
                        state.wanted = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.produceMore()
        }
    }

    /// The consumer drained the buffer below the low watermark: the transfer reads on.
    func produceMore() {
        let waiter = self.state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.wanted = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The consumer went away (or read to the end, in which case the transfer is over and this does nothing).
    func didTerminate() {
        self.transfer.cancel(.consumerGone)
        self.produceMore()
    }
}
