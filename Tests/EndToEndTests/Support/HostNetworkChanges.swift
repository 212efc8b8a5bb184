import Synchronization

/// Keeps browser runs apart from tests that change this machine's network: Chromium fails a page
/// load under way with `ERR_NETWORK_CHANGED` when an interface comes or goes, as LANModeTests'
/// network namespaces do, which would make a browser test depend on what runs beside it.
///
/// Browser runs share (any number at once); a network change is exclusive, waits for the runs
/// under way, and holds back runs that start after it asked, so it is never starved.
final class HostNetworkChanges: Sendable {
    /// The one shared by every test in the process.
    static let shared = HostNetworkChanges()

    private struct State {
        var browserRuns = 0
        var isChanging = false
        var waitingRuns: [CheckedContinuation<Void, Never>] = []
        var waitingChanges: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` (a browser run) while no network change is under way or waiting.
    func duringBrowserRun<T>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = self.state.withLock { state in
                guard !state.isChanging, state.waitingChanges.isEmpty else {
                    state.waitingRuns.append(continuation)
                    return false
                }
                state.browserRuns += 1
                return true
            }
            if admitted { continuation.resume() }
        }
        defer {
            let next = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.browserRuns -= 1
                guard state.browserRuns == 0, !state.waitingChanges.isEmpty else { return nil }
                state.isChanging = true
                return state.waitingChanges.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }

    /// Runs `body` (which changes the machine's network) with no browser run under way.
    func whileChanging<T>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = self.state.withLock { state in
                guard !state.isChanging, state.browserRuns == 0 else {
                    state.waitingChanges.append(continuation)
                    return false
                }
                state.isChanging = true
                return true
            }
            if admitted { continuation.resume() }
        }
        defer {
            let next = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if !state.waitingChanges.isEmpty {
                    return [state.waitingChanges.removeFirst()]
                }
                state.isChanging = false
                state.browserRuns += state.waitingRuns.count
                defer { state.waitingRuns = [] }
                return state.waitingRuns
            }
            for continuation in next { continuation.resume() }
        }
        return try await body()
    }
}
