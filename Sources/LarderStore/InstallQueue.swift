import LarderHTTP
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
    /// The response's header fields as stored.
    var headers: [HeaderField]
    /// The stored `Content-Type`, kept in its own column.
    var contentType: String? {
        self.headers.first { $0.hasName("content-type") }?.value
    }
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

    /// Installs submitted together, resumed together with their outcomes in order.
    private struct Waiting {
        var installs: [PendingInstall]
        var continuation: CheckedContinuation<[Result<(IndexRow, EntryKind), any Error>], Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var isCommitting = false
    }

    private let state = Mutex(State())

    /// How many installs wait for a batch (tests hold a batch back until the next one has formed).
    var waitingCount: Int {
        self.state.withLock { $0.waiting.reduce(0) { $0 + $1.installs.count } }
    }

    /// Queues `install` and returns its stored row and kind once its batch is committed. The
    /// first install to find no batch in progress commits batches with `commit` until none wait.
    func submit(
        _ install: PendingInstall,
        commit: @escaping @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]
    ) async throws -> (IndexRow, EntryKind) {
        try await self.submit([install], commit: commit)[0].get()
    }

    /// Queues `installs` to be committed in one batch (or, beyond ``maximumBatch``, in as few as
    /// fit), and returns each one's outcome, in order, once committed: many finished bodies (a
    /// precache's) handed over at once wait on one resumption, not one each.
    func submit(
        _ installs: [PendingInstall],
        commit: @escaping @Sendable ([PendingInstall]) async throws -> [Result<(IndexRow, EntryKind), any Error>]
    ) async -> [Result<(IndexRow, EntryKind), any Error>] {
        guard !installs.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let startsCommitting = self.state.withLock { state in
                state.waiting.append(Waiting(installs: installs, continuation: continuation))
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
            // Whole submissions, as many as fit in one batch (a larger one goes on its own).
            let batch: [Waiting] = self.state.withLock { state in
                var count = 0
                let taken = state.waiting.prefix { waiting in
                    defer { count += waiting.installs.count }
                    return count == 0 || count + waiting.installs.count <= Self.maximumBatch
                }
                let batch = Array(taken)
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.isCommitting = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            let installs = batch.flatMap(\.installs)
            let outcomes: [Result<(IndexRow, EntryKind), any Error>]
            do {
                outcomes = try await commit(installs)
            } catch {
                outcomes = installs.map { _ in .failure(error) }
            }
            var rest = outcomes[...]
            for waiting in batch {
                waiting.continuation.resume(returning: Array(rest.prefix(waiting.installs.count)))
                rest = rest.dropFirst(waiting.installs.count)
            }
        }
    }
}
