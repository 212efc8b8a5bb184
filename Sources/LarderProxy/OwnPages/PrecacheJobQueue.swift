import LarderHTTP
import LarderIntrospection
import LarderStore

/// Precaches the running proxy starts (`POST /dev/offline/precache`, a game page's "precache
/// again" button). The proxy does not depend on LarderPrecache: `Larder` (LarderEmbedded, which
/// `larder serve` runs) plugs its job queue in (Sources/LarderEmbedded/PrecacheJobs+Queue.swift).
public protocol PrecacheJobQueue: Sendable {
    /// Reads `lines` as a games list's lines and queues a job for what they name, unless one of
    /// them names a URL `allowed` refuses. The job also precaches, as pages, the `extraURLs` of the
    /// games the lines name and those of no game (added by the user on /dev/offline, so `allowed`
    /// does not apply to them). `reach` is what the asking client may make Larder reach
    /// (``UpstreamReach``; nil for the box's own user): every fetch of the job, redirects
    /// included, is refused at connect time an address of the box's own it does not allow.
    func submit(
        lines: [String], extraURLs: [ExtraURLRecord], source: String, requestedBy origin: String?, reach: UpstreamReach?,
        allowed: (HTTPURL) -> Bool
    ) -> PrecacheSubmission
    /// Queues a job a web page on `origin` asked for, unless one of the lines names a URL of
    /// another origin (docs/SERVING.md, "What is private and where it is kept"): it takes only the
    /// lines that name a page (a game or series line is a problem left out, as games and series
    /// are the user's own), never the user's extra URLs; what it stores is kept as runtime entries,
    /// evicted least recently used first (a page the user's own runs pinned stays pinned); and it
    /// starts no download once it has downloaded `allowance()` bytes, asked when it starts. `reach`
    /// as for ``submit(lines:extraURLs:source:requestedBy:reach:allowed:)``.
    func submitPageJob(
        lines: [String], origin: String, reach: UpstreamReach?, allowance: @escaping @Sendable () -> Int64
    ) -> PrecacheSubmission
    /// A job's state, or nil for an unknown id.
    func status(_ id: String) -> PrecacheJobStatus<EncodedReport>?
    /// Runs queued jobs one at a time until cancelled.
    func run() async
}

extension PrecacheJobQueue {
    /// Queues a job for `lines` with the extra URLs `store` holds (see
    /// ``submit(lines:extraURLs:source:requestedBy:reach:allowed:)``).
    public func submit(
        lines: [String], source: String, requestedBy origin: String?, store: Store, reach: UpstreamReach? = nil,
        allowed: (HTTPURL) -> Bool
    ) async throws -> PrecacheSubmission {
        let extraURLs = try await store.extraURLs()
        return self.submit(lines: lines, extraURLs: extraURLs, source: source, requestedBy: origin, reach: reach, allowed: allowed)
    }
}
