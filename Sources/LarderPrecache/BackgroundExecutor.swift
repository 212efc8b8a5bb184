import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the jobs of tasks that prefer it (`withTaskExecutorPreference`) on threads of the lowest
/// CPU priority, so that a precache inside the proxy yields the cores to serving: its body writes
/// and hashing, planning and recording run here, and get CPU time only when the event loops and
/// the proxy's own work leave some.
///
/// One per process (``shared``); its threads live as long as the process.
public final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor of in-proxy precache jobs: one thread per core.
    public static let shared = BackgroundExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// The nice value of its threads: the lowest priority.
    static let niceness: Int32 = 19

    // `@unchecked Sendable`: `queue` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var head = 0

    private init(threads: Int) {
        for number in 0..<max(1, threads) {
            let thread = Thread { [self] in
                Self.lowerCurrentThreadPriority()
                self.runJobs()
            }
            thread.name = "larder-background-\(number)"
            thread.start()
        }
    }

    /// Lowers the calling thread's CPU priority to ``niceness``. On Linux the nice value belongs
    /// to the thread (`setpriority` with `PRIO_PROCESS` and 0 names the calling thread), so the
    /// rest of the process keeps its priority; elsewhere this does nothing.
    public static func lowerCurrentThreadPriority() {
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #endif
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.condition.lock()
        self.queue.append(job)
        self.condition.signal()
        self.condition.unlock()
    }

    private func runJobs() {
        while true {
            self.condition.lock()
            while self.head == self.queue.count {
                self.condition.wait()
            }
            let job = self.queue[self.head]
            self.head += 1
            if self.head == self.queue.count || self.head >= 4096 {
                // The array does not grow with every job ever run.
                self.queue.removeFirst(self.head)
                self.head = 0
            }
            self.condition.unlock()
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
