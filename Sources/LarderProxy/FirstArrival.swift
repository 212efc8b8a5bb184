import Synchronization

/// Resumes a continuation with the first of several racing results and ignores the rest.
final class FirstArrival: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var early: Bool?
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// The task that arrives with `false` when time is up; cancelled by the caller once decided.
    var timer: Task<Void, Never>? {
        get { self.state.withLock { $0.timer } }
        set { self.state.withLock { $0.timer = newValue } }
    }

    /// Registers the continuation; resumes it at once if a result arrived before.
    func begin(_ continuation: CheckedContinuation<Bool, Never>) {
        let early: Bool? = self.state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Delivers a result; only the first one counts.
    func arrive(_ value: Bool) {
        let continuation: CheckedContinuation<Bool, Never>? = self.state.withLock { state in
            guard state.early == nil else { return nil }
            state.early = value
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
