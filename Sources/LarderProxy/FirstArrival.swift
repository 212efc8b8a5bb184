import NIOConcurrencyHelpers

/// Resumes a continuation with the first of several racing results and ignores the rest.
final class FirstArrival: @unchecked Sendable {
    // Guarded by `lock`.
    private var continuation: CheckedContinuation<Bool, Never>?
    private var early: Bool?
    private var timerTask: Task<Void, Never>?
    private let lock = NIOLock()

    /// The task that arrives with `false` when time is up; cancelled by the caller once decided.
    var timer: Task<Void, Never>? {
        get { self.lock.withLock { self.timerTask } }
        set { self.lock.withLock { self.timerTask = newValue } }
    }

    /// Registers the continuation; resumes it at once if a result arrived before.
    func begin(_ continuation: CheckedContinuation<Bool, Never>) {
        let early: Bool? = self.lock.withLock {
            if let early = self.early { return early }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Delivers a result; only the first one counts.
    func arrive(_ value: Bool) {
        let continuation: CheckedContinuation<Bool, Never>? = self.lock.withLock {
            guard self.early == nil else { return nil }
            self.early = value
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: value)
    }
}
