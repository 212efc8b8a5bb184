import Foundation
import LarderHTTP
import LarderIntrospection
import Synchronization

/// The precache jobs web pages asked for through the precache API, per page origin, held to
/// ``PagePrecacheLimit`` (docs/FORMATS.md, "POST /dev/offline/precache"): a page's request beyond
/// it is refused (`429`), so no page can queue work, or make Larder download, without bound.
public final class PageJobLimit: Sendable {
    /// One job as counted: its id in the queue and what the limit reads of it.
    private struct Counted {
        var id: String
        var job: PagePrecacheLimit.Job
    }

    /// The limits.
    public let limit: PagePrecacheLimit
    private let jobs: any PrecacheJobQueue
    private let now: @Sendable () -> Date
    /// Each origin's jobs that the limits still count: those of the past hour, and any unfinished.
    private let counted = Mutex<[String: [Counted]]>([:])

    /// Limits `limit` on the jobs of `jobs`, at the times `now` gives.
    init(limit: PagePrecacheLimit, jobs: any PrecacheJobQueue, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.jobs = jobs
        self.now = now
    }

    /// One origin's use of the limits at one moment, for /dev/offline.
    public typealias Use = PageJobUse

    /// Each origin's jobs and bytes of the past hour, by origin (those with any).
    public func use() -> [Use] {
        let now = self.now()
        return self.counted.withLock { counted in
            counted.keys.sorted().compactMap { origin in
                let recent = self.limit.recent(self.refresh(&counted, origin: origin, now: now), now: now)
                guard !recent.isEmpty else { return nil }
                return Use(origin: origin, jobs: recent.count, bytes: recent.reduce(0) { $0 + $1.bytes })
            }
        }
    }

    /// Runs `submit` for a page on `origin` unless the limits refuse it, and counts the job it
    /// queues. `submit` is given the job's byte allowance: what the origin may still download when
    /// the job starts. Checking and queuing are one step, so requests at once cannot pass the
    /// limits together.
    func submit(
        from origin: String, _ submit: (@escaping @Sendable () -> Int64) -> PrecacheSubmission
    ) -> Result<PrecacheSubmission, PagePrecacheLimit.Refusal> {
        let now = self.now()
        return self.counted.withLock { counted in
            let all = self.refreshAll(&counted, now: now)
            if let refusal = self.limit.refusal(jobs: all[origin] ?? [], allJobs: all.values.flatMap { $0 }, now: now) {
                return .failure(refusal)
            }
            let submission = submit { [self] in self.bytesLeft(origin: origin) }
            if case .queued(let id, _) = submission {
                counted[origin, default: []].append(
                    Counted(id: id, job: PagePrecacheLimit.Job(submitted: now, bytes: 0, isFinished: false)))
            }
            return .success(submission)
        }
    }

    /// What `origin` may still download now, within what every page origin together may.
    private func bytesLeft(origin: String) -> Int64 {
        let now = self.now()
        return self.counted.withLock { counted in
            let all = self.refreshAll(&counted, now: now)
            return self.limit.bytesLeft(jobs: all[origin] ?? [], allJobs: all.values.flatMap { $0 }, now: now)
        }
    }

    /// Every origin's counted jobs, refreshed (``refresh(_:origin:now:)``). The map holds only
    /// origins with a job of the past hour or an unfinished one, which the limits on every origin
    /// together bound.
    private func refreshAll(_ counted: inout [String: [Counted]], now: Date) -> [String: [PagePrecacheLimit.Job]] {
        var all: [String: [PagePrecacheLimit.Job]] = [:]
        for origin in Array(counted.keys) {
            let jobs = self.refresh(&counted, origin: origin, now: now)
            if !jobs.isEmpty { all[origin] = jobs }
        }
        return all
    }

    /// `origin`'s counted jobs with their bytes and state as the queue reports them now (a job
    /// the queue no longer knows keeps the bytes last seen, finished), less those the limits no
    /// longer count.
    private func refresh(_ counted: inout [String: [Counted]], origin: String, now: Date) -> [PagePrecacheLimit.Job] {
        var kept: [Counted] = []
        for var entry in counted[origin] ?? [] {
            if let status = self.jobs.status(entry.id) {
                entry.job.bytes = status.bytes
                entry.job.isFinished = status.state == "finished"
            } else {
                entry.job.isFinished = true
            }
            if !entry.job.isFinished || !self.limit.recent([entry.job], now: now).isEmpty {
                kept.append(entry)
            }
        }
        counted[origin] = kept.isEmpty ? nil : kept
        return kept.map(\.job)
    }
}
