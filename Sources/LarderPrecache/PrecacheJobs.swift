import Foundation
import LarderHTTP
import LarderIntrospection
import Synchronization

/// Precache jobs started through `POST /dev/offline/precache`, run one after another in the
/// background of the running proxy with the same runner as `larder precache`, on the
/// ``BackgroundExecutor``'s low-priority threads so that serving keeps the cores.
public final class PrecacheJobs: Sendable {
    /// A job's state, as `GET /dev/offline/precache/ID` reports it, with its report.
    public typealias Status = PrecacheJobStatus<PrecacheReport>

    private struct Request: Sendable {
        var id: String
        var list: GamesList
        /// For a job a web page asked for: the bytes it may download, asked when it starts (its
        /// origin's earlier jobs have finished by then: jobs run one at a time).
        var pageAllowance: (@Sendable () -> Int64)?
        /// What the asking client may make Larder reach (``PrecacheOptions/reach``).
        var reach: UpstreamReach?
    }

    private let runner: PrecacheRunner
    private let statuses = Mutex<[String: Status]>([:])
    private let requests: AsyncStream<Request>
    private let continuation: AsyncStream<Request>.Continuation

    /// Creates the job queue; jobs run while `run()` does.
    public init(runner: PrecacheRunner) {
        self.runner = runner
        (self.requests, self.continuation) = AsyncStream.makeStream(of: Request.self)
    }

    /// Queues a job; returns its id. `pageAllowance` makes it a web page's job
    /// (``PrecacheRunner/forPageJob(byteAllowance:)``), allowed the bytes it returns when the job starts;
    /// `reach` limits what its fetches may connect to (``PrecacheOptions/reach``).
    public func submit(
        _ list: GamesList, requestedBy origin: String?, reach: UpstreamReach? = nil, pageAllowance: (@Sendable () -> Int64)? = nil
    ) -> String {
        let id = UUID().uuidString.lowercased()
        self.statuses.withLock {
            // Keep at most 100 jobs: forget a finished one so the map cannot grow without bound.
            if $0.count >= 100, let finished = $0.values.first(where: { $0.state == "finished" })?.id {
                $0.removeValue(forKey: finished)
            }
            $0[id] = Status(
                id: id, state: "queued", requestedBy: origin, filesToFetch: 0, filesDone: 0, filesFailed: 0, bytes: 0, report: nil)
        }
        self.continuation.yield(Request(id: id, list: list, pageAllowance: pageAllowance, reach: reach))
        return id
    }

    /// A job's status, or nil for an unknown id.
    public func status(_ id: String) -> Status? {
        self.statuses.withLock { $0[id] }
    }

    /// Runs queued jobs one at a time until cancelled (a cancelled job stops; re-running it
    /// fetches only what is missing).
    public func run() async {
        for await request in self.requests {
            if Task.isCancelled { return }
            self.update(request.id) { $0.state = "running" }
            // At background priority as well: the dispatch queues the job's work reaches (the
            // index's writer) run its blocks at that priority.
            let report = await withTaskGroup(of: PrecacheReport.self) { group in
                group.addTask(executorPreference: BackgroundExecutor.shared, priority: .background) {
                    await self.run(request)
                }
                // The one task added above.
                return await group.next()!
            }
            self.update(request.id) {
                $0.state = "finished"
                $0.report = report
            }
        }
    }

    /// Runs one job, its status following the run's progress.
    private func run(_ request: Request) async -> PrecacheReport {
        let runner = (request.pageAllowance.map { self.runner.forPageJob(byteAllowance: $0()) } ?? self.runner).reaching(request.reach)
        return await runner.run(request.list) { event in
            self.update(request.id) { status in
                switch event {
                case .planned(let toFetch, _):
                    status.filesToFetch = toFetch
                case .fileFinished(_, _, let bytes, let error):
                    status.filesDone += 1
                    status.bytes += bytes
                    if error != nil { status.filesFailed += 1 }
                case .fetchingManifests, .finished:
                    break
                }
            }
        }
    }

    private func update(_ id: String, _ change: (inout Status) -> Void) {
        self.statuses.withLock { statuses in
            if var status = statuses[id] {
                change(&status)
                statuses[id] = status
            }
        }
    }
}
