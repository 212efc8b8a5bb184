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
    }

    private let state = Mutex(State())

    /// How many installs wait for a batch (tests hold a batch back until the next one has formed).
    var waitingCount: Int {
        self.state.withLock { $0.waiting.count }
    }

    /// Queues `install` and returns its stored row and kind once its batch is committed. The
    /// first install to find no batch in progress commits batches with `commit` until none wait.
    func submit(
        _ install: PendingInstall,
        commit: @escaping @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]
    ) async throws -> (IndexRow, EntryKind) {
        try await withCheckedThrowingContinuation { continuation in
            let startsCommitting = self.state.withLock { state in
                state.waiting.append(Waiting(install: install, continuation: continuation))
                defer { state.isCommitting = true }
                return !state.isCommitting
            }
            if startsCommitting {
                // Unstructured so that one submitter's cancellation (its client gone) cannot abort a
                // batch holding others' installs; each submitter awaits its outcome, so the task ends
                // with the last of them.
                Task { await self.commitUntilEmpty(commit) }
            }
        }
    }

    private func commitUntilEmpty(_ commit: @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]) async {
        while true {
            let batch: [Waiting] = self.state.withLock { state in
                let batch = Array(state.waiting.prefix(Self.maximumBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.isCommitting = false }
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
