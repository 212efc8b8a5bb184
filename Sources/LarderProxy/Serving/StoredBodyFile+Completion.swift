import Synchronization

extension StoredBodyFile {
    /// When a body sent from its file is done with, for the task that wrote it: the task goes on
    /// (to the response's end, or to close the connection) only once the bytes are out, since NIO
    /// drops writes still pending when a connection closes. The first of these settles it: NIO
    /// reports the write done or failed, the connection closes before the write reached it, or the
    /// waiting task is cancelled.
    public final class Completion: Sendable {
        private enum State {
            case waiting(CheckedContinuation<Void, any Error>?)
            case settled(Result<Void, any Error>)
        }

        private let state = Mutex(State.waiting(nil))

        init() {}

        /// Settles with `result`, unless settled already.
        func settle(_ result: Result<Void, any Error>) {
            let waiting = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .settled(result)
                return continuation
            }
            waiting?.resume(with: result)
        }

        /// Returns once settled; throws what a failed write or closed connection reported.
        func wait() async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let settled = self.state.withLock { state -> Result<Void, any Error>? in
                        switch state {
                        case .waiting:
                            state = .waiting(continuation)
                            return nil
                        case .settled(let result):
                            return result
                        }
                    }
                    if let settled {
                        continuation.resume(with: settled)
                    }
                }
            } onCancel: {
                self.settle(.failure(CancellationError()))
            }
        }
    }
}
