import Synchronization

/// How many precache jobs a web page's origin may have unfinished through the precache API
/// (docs/FORMATS.md, "POST /dev/offline/precache"): one running and four waiting. Beyond that a page's request is
/// refused (`429`) until one of its jobs finishes, so no page can queue work without bound.
final class PageJobLimit: Sendable {
    /// Jobs queued or running per origin, at most.
    static let maximumUnfinished = 5

    /// The ids of each origin's jobs not yet seen finished.
    private let jobs = Mutex<[String: [String]]>([:])

    /// Runs `submit` for a page on `origin` unless the origin has ``maximumUnfinished`` jobs that
    /// `isUnfinished` says are queued or running (then nil), and counts the job it queues. Checking
    /// and queuing are one step, so requests at once cannot pass the limit together.
    func submit(from origin: String, isUnfinished: (String) -> Bool, _ submit: () -> PrecacheSubmission) -> PrecacheSubmission? {
        self.jobs.withLock { jobs in
            let unfinished = (jobs[origin] ?? []).filter(isUnfinished)
            jobs[origin] = unfinished.isEmpty ? nil : unfinished
            guard unfinished.count < Self.maximumUnfinished else { return nil }
            let submission = submit()
            if case .queued(let id, _) = submission {
                jobs[origin, default: []].append(id)
            }
            return submission
        }
    }
}
