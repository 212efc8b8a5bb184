import Synchronization

/// One value passed from work that goes on in the background to a request that waits for it a
/// limited time: whichever comes first, the value or the end of the wait, decides who keeps it.
/// A value that comes after the wait ended goes back to its producer, which handles it alone.
final class HandOff<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Value?, Never>)
        case delivered(Value)
        /// The waiter stopped waiting (or took the value): later values go back to the producer.
        case closed
    }

    /// What delivering a value comes to.
    private enum Delivery {
        case kept
        case resume(CheckedContinuation<Value?, Never>)
        case returned
    }

    private let state = Mutex(State.pending)

    /// Hands `value` to the waiter; returns it when nobody waits for it any more.
    func deliver(_ value: Value) -> Value? {
        let outcome: Delivery = self.state.withLock { state in
            switch state {
            case .pending:
                state = .delivered(value)
                return .kept
            case .waiting(let continuation):
                state = .closed
                return .resume(continuation)
            case .delivered, .closed:
                return .returned
            }
        }
        switch outcome {
        case .kept:
            return nil
        case .resume(let continuation):
            continuation.resume(returning: value)
            return nil
        case .returned:
            return value
        }
    }

    /// The value, when it comes within `timeout` and this task is not cancelled first; nil otherwise.
    func take(within timeout: Duration) async -> Value? {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.close()
            }
            let value = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready: Value?? = self.state.withLock { state in
                        switch state {
                        case .pending:
                            state = .waiting(continuation)
                            return .none
                        case .delivered(let value):
                            state = .closed
                            return .some(value)
                        case .closed:
                            return .some(nil)
                        case .waiting:
                            preconditionFailure("one waiter")
                        }
                    }
                    if let ready {
                        continuation.resume(returning: ready)
                    }
                }
            } onCancel: {
                self.close()
            }
            group.cancelAll()
            return value
        }
    }

    /// Ends the wait: a waiter gets nil, and later values go back to the producer.
    private func close() {
        let waiter: CheckedContinuation<Value?, Never>? = self.state.withLock { state in
            switch state {
            case .waiting(let continuation):
                state = .closed
                return continuation
            case .pending:
                state = .closed
                return nil
            case .delivered, .closed:
                return nil
            }
        }
        waiter?.resume(returning: nil)
    }
}
