import LarderHTTP
import LarderIntrospection
import LarderProxy
import LarderStore
import Synchronization

/// A precache job queue that keeps what it is asked and runs nothing: the proxy's side of the
/// precache API (the real queue, `PrecacheJobs`, is covered by the end-to-end tests).
final class QueuedPrecacheJobs: PrecacheJobQueue {
    private let submitted = Mutex<[(id: String, lines: [String], extraURLs: [String])]>([])

    /// The lines of every job queued so far.
    var lines: [[String]] {
        self.submitted.withLock { $0.map(\.lines) }
    }

    /// The extra URLs every job queued so far was given.
    var extraURLs: [[String]] {
        self.submitted.withLock { $0.map(\.extraURLs) }
    }

    func submit(
        lines: [String], extraURLs: [ExtraURLRecord], source: String, requestedBy origin: String?, reach: UpstreamReach?,
        allowed: (HTTPURL) -> Bool
    )
        -> PrecacheSubmission
    {
        let urls = lines.compactMap { try? HTTPURL(parsing: $0) }
        guard !urls.isEmpty || (lines.isEmpty && !extraURLs.isEmpty) else {
            return .nothingToPrecache(problems: lines.map { "\(source): \($0) is not a URL" })
        }
        if let refused = urls.first(where: { !allowed($0) }) {
            return .refused(url: refused.absoluteString)
        }
        return self.submitted.withLock {
            $0.append((id: "job-\($0.count + 1)", lines: lines, extraURLs: extraURLs.map(\.url)))
            return .queued(id: "job-\($0.count)", problems: [])
        }
    }

    func submitPageJob(lines: [String], origin: String, reach: UpstreamReach?, allowance: @escaping @Sendable () -> Int64)
        -> PrecacheSubmission
    {
        self.submit(lines: lines, extraURLs: [], source: "request", requestedBy: origin, reach: reach, allowed: { $0.origin == origin })
    }

    func status(_ id: String) -> PrecacheJobStatus<EncodedReport>? {
        guard self.submitted.withLock({ $0.contains { $0.id == id } }) else { return nil }
        return PrecacheJobStatus<EncodedReport>(
            id: id, state: "queued", requestedBy: nil, filesToFetch: 0, filesDone: 0, filesFailed: 0, bytes: 0, report: nil)
    }

    func run() async {}
}
