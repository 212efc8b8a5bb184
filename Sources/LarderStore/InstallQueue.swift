import Synchronization

/// A finished body waiting for its index row: everything the write transaction needs.
struct PendingInstall: Sendable {
    var temporaryPath: String
    /// The temporary file, open (and locked) until the install's batch is done.
    var descriptor: Int32
    var bodyPath: String
    var bodyFolder: String
    var size: Int64
    var kind: EntryKind
    var row: IndexRow
    var contentType: String?
    /// Whether the row goes to `staged_entry` (a game version not complete yet) rather than `entry`.
    var isStaged: Bool
}

/// Group commit for finished bodies: installs that arrive while a batch is being committed are
/// committed together in the next one, so many bodies finishing at once (a precache) share one
/// transaction, one durability barrier and the write-ahead-log pages instead of each paying for
/// its own. A lone install (a proxy storing one response) is committed at once.
final class InstallQueue: Sendable {
    /// The most installs one transaction takes, so none waits long behind a huge batch.
    static let maximumBatch = 256

    private struct Waiting {
        var install: PendingInstall
        var continuation: CheckedContinuation<(IndexRow, EntryKind), any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var isCommitting = false
        /// The task committing batches, and its priority: that of the install that started it,
        /// raised to that of any install that waits on it since.
        var committer: Task<Void, Never>?
        var committerPriority = TaskPriority.background
    }

    private let state = Mutex(State())

    /// How many installs wait for a batch (tests hold a batch back until the next one has formed).
    var waitingCount: Int {
        self.state.withLock { $0.waiting.count }
    }

    /// Queues `install` and returns its stored row and kind once its batch is committed. The
    /// first install to find no batch in progress commits batches with `commit` until none wait.
    ///
    /// The committing task runs at the priority of the install that started it, so a low-priority
    /// precache's batches run at low priority too; an install of higher priority that waits on it
    /// (a proxy storing a client's answer) raises it.
    func submit(
        _ install: PendingInstall,
        commit: @escaping @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]
    ) async throws -> (IndexRow, EntryKind) {
        let priority = Task.currentPriority
        return try await withCheckedThrowingContinuation { continuation in
            let raising: Task<Void, Never>? = self.state.withLock { state in
                state.waiting.append(Waiting(install: install, continuation: continuation))
                guard state.isCommitting else {
                    state.isCommitting = true
                    // Unstructured so that one submitter's cancellation (its client gone) cannot
                    // abort a batch holding others' installs; each submitter awaits its outcome, so
                    // the task ends with the last of them.
                    state.committer = Task(priority: priority) { await self.commitUntilEmpty(commit) }
                    state.committerPriority = priority
                    return nil
                }
                guard priority > state.committerPriority else { return nil }
                state.committerPriority = priority
                return state.committer
            }
            raising?.escalatePriority(to: priority)
        }
    }

    private func commitUntilEmpty(_ commit: @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]) async {
        while true {
            let batch: [Waiting] = self.state.withLock { state in
                let batch = Array(state.waiting.prefix(Self.maximumBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty {
                    state.isCommitting = false
                    state.committer = nil
                }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let outcomes = try await commit(batch.map(\.install))
                for (waiting, outcome) in zip(batch, outcomes) {
                    waiting.continuation.resume(with: outcome)
                }
            } catch {
                for waiting in batch {
                    waiting.continuation.resume(throwing: error)
                }
            }
        }
    }
}
