import Foundation

/// How much the web pages of one origin may make Larder precache through
/// `POST /dev/offline/precache` (docs/SERVING.md, "What is private and where it is kept"): a few
/// jobs at once, a number of jobs per hour, and bytes per hour, a share of `--max-size`. What such
/// jobs store is kept as runtime entries (evicted least recently used first), so a page can
/// neither pin data nor flush the cache faster than its hourly bytes.
public struct PagePrecacheLimit: Sendable, Hashable {
    /// The window the hourly limits count over, in seconds.
    public static let window: TimeInterval = 3600
    /// Jobs of one origin queued or running at once: one running, four waiting.
    public static let maximumUnfinished = 5
    /// Jobs one origin may ask for per hour.
    public static let jobsPerHour = 10
    /// One origin's jobs may download at most `--max-size` divided by this per hour.
    public static let budgetShare: Int64 = 4
    /// Bytes per hour without `--max-size`.
    public static let unboundedBytesPerHour: Int64 = 256 << 20
    /// The pages of every origin together: three origins' worth of jobs at once and of jobs and
    /// bytes an hour (bytes at most half of `--max-size`). Origins cost a page nothing
    /// (`a1.evil.example`, `a2.evil.example`...), so one origin's limits alone bound nothing.
    public static let allOriginsFactor = 3
    /// Jobs of every page origin together queued or running at once.
    public static let allOriginsMaximumUnfinished = maximumUnfinished * allOriginsFactor

    /// Jobs per hour.
    public var jobsPerHour: Int
    /// Bytes one origin's jobs may download per hour.
    public var bytesPerHour: Int64
    /// Jobs the pages of every origin together may ask for per hour.
    public var allOriginsJobsPerHour: Int
    /// Bytes the jobs of every page origin together may download per hour.
    public var allOriginsBytesPerHour: Int64

    /// The limits under a store budget of `budget` bytes (nil: none).
    public init(budget: Int64?) {
        self.jobsPerHour = Self.jobsPerHour
        self.bytesPerHour = budget.map { max(1, $0 / Self.budgetShare) } ?? Self.unboundedBytesPerHour
        self.allOriginsJobsPerHour = Self.jobsPerHour * Self.allOriginsFactor
        self.allOriginsBytesPerHour = min(budget.map { max(1, $0 / 2) } ?? Int64.max, self.bytesPerHour * Int64(Self.allOriginsFactor))
    }

    /// One job of an origin, as the limits count it.
    public struct Job: Sendable, Hashable {
        /// When it was asked for.
        public var submitted: Date
        /// Bytes it downloaded so far.
        public var bytes: Int64
        /// Whether it has finished.
        public var isFinished: Bool

        /// A job.
        public init(submitted: Date, bytes: Int64, isFinished: Bool) {
            self.submitted = submitted
            self.bytes = bytes
            self.isFinished = isFinished
        }
    }

    /// Why an origin may not have one more job.
    public enum Refusal: Error, Sendable, Hashable {
        /// ``maximumUnfinished`` jobs are queued or running.
        case unfinished
        /// ``jobsPerHour`` jobs were asked for in the past hour.
        case jobsPerHour(Int)
        /// The past hour's jobs downloaded ``bytesPerHour``.
        case bytesPerHour(Int64)
        /// The pages of every origin together have ``allOriginsMaximumUnfinished`` jobs queued or running.
        case allOriginsUnfinished
        /// The pages of every origin together asked for ``allOriginsJobsPerHour`` jobs in the past hour.
        case allOriginsJobsPerHour(Int)
        /// The past hour's jobs of every page origin together downloaded ``allOriginsBytesPerHour``.
        case allOriginsBytesPerHour(Int64)

        /// The error a page on `origin` is told.
        public func message(origin: String) -> String {
            switch self {
            case .unfinished:
                "a page on \(origin) may have at most \(PagePrecacheLimit.maximumUnfinished) precache jobs queued or running; "
                    + "ask again when one has finished"
            case .jobsPerHour(let limit):
                "a page on \(origin) may ask for at most \(limit) precache jobs an hour; ask again later"
            case .bytesPerHour(let limit):
                "a page on \(origin) may make Larder download at most \(ByteSize(bytes: limit)) an hour; ask again later"
            case .allOriginsUnfinished:
                "pages of other sites together may have at most \(PagePrecacheLimit.allOriginsMaximumUnfinished) precache jobs queued or "
                    + "running; ask again when one has finished"
            case .allOriginsJobsPerHour(let limit):
                "pages of other sites together may ask for at most \(limit) precache jobs an hour; ask again later"
            case .allOriginsBytesPerHour(let limit):
                "pages of other sites together may make Larder download at most \(ByteSize(bytes: limit)) an hour; ask again later"
            }
        }
    }

    /// The jobs of `jobs` the hourly limits count at `now`: those asked for in the past hour.
    public func recent(_ jobs: [Job], now: Date) -> [Job] {
        jobs.filter { now.timeIntervalSince($0.submitted) < Self.window }
    }

    /// Why an origin with `jobs` may not have one more at `now`, when the pages of every origin
    /// have `allJobs` (its own included), or nil when it may.
    public func refusal(jobs: [Job], allJobs: [Job], now: Date) -> Refusal? {
        if let refusal = self.refusal(jobs: jobs, now: now) {
            return refusal
        }
        if allJobs.count(where: { !$0.isFinished }) >= Self.allOriginsMaximumUnfinished {
            return .allOriginsUnfinished
        }
        if self.recent(allJobs, now: now).count >= self.allOriginsJobsPerHour {
            return .allOriginsJobsPerHour(self.allOriginsJobsPerHour)
        }
        if self.bytesLeft(jobs: jobs, allJobs: allJobs, now: now) <= 0 {
            return .allOriginsBytesPerHour(self.allOriginsBytesPerHour)
        }
        return nil
    }

    /// What an origin with `jobs` may still download at `now` when the pages of every origin have
    /// `allJobs`: the least of its own bytes left and those of every origin together.
    public func bytesLeft(jobs: [Job], allJobs: [Job], now: Date) -> Int64 {
        let together = max(0, self.allOriginsBytesPerHour - self.recent(allJobs, now: now).reduce(0) { $0 + $1.bytes })
        return min(self.bytesLeft(jobs: jobs, now: now), together)
    }

    /// Why an origin with `jobs` may not have one more at `now` by its own limits, or nil when it may.
    public func refusal(jobs: [Job], now: Date) -> Refusal? {
        if jobs.count(where: { !$0.isFinished }) >= Self.maximumUnfinished {
            return .unfinished
        }
        if self.recent(jobs, now: now).count >= self.jobsPerHour {
            return .jobsPerHour(self.jobsPerHour)
        }
        if self.bytesLeft(jobs: jobs, now: now) <= 0 {
            return .bytesPerHour(self.bytesPerHour)
        }
        return nil
    }

    /// What an origin with `jobs` may still download at `now`: a running job starts no download
    /// once this is spent.
    public func bytesLeft(jobs: [Job], now: Date) -> Int64 {
        max(0, self.bytesPerHour - self.recent(jobs, now: now).reduce(0) { $0 + $1.bytes })
    }
}
