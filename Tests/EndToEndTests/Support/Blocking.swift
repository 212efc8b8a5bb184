import Foundation

/// Runs blocking work (waiting on a child process, a blocking socket read) on its own thread,
/// so it never occupies one of the few cooperative threads the in-process test origin needs.
func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: work())
        }
        thread.start()
    }
}
