import Foundation
import LarderHTTP
import LarderStore

/// How a precache run behaves: politeness, filters, retries.
public struct PrecacheOptions: Sendable {
    /// Downloads in flight at once, over all hosts (`--concurrency`).
    public var concurrency = 8
    /// Downloads in flight at once to one host.
    public var connectionsPerHost = 6
    /// Asked before each download starts: how long to wait first (nil or zero: no wait). A
    /// precache job inside the proxy waits ``pauseWhileClientsBusy`` while the proxy's clients are
    /// busy, so that the job's share of the cores stays bounded and the answers keep theirs.
    public var pauseBeforeDownload: (@Sendable () -> Duration)?
    /// The least time between the starts of two requests to one host (`--delay-ms`).
    public var delayPerHost: Duration = .zero
    /// Manifest files matching these are left out (`--exclude`).
    public var excludes: [ExcludeGlob] = []
    /// Whether manifests may list files on other origins.
    public var allowCrossOrigin = false
    /// Query parameters left out of cache keys (must match the proxy's).
    public var queryFilter: QueryParameterFilter = .default
    /// Retries of transient failures.
    public var retry = RetryPolicy()
    /// How long to wait for a connection.
    public var connectTimeout: Duration = .seconds(10)
    /// How long a transfer may stall.
    public var idleTimeout: Duration = .seconds(30)
    /// The moment that decides each series' today (in the series' zone); tests set another.
    public var clock: @Sendable () -> Date = { Date() }
    /// How the entries a run stores on their own (pages, and what a manifest stored at once) are
    /// kept: pinned as precached for the user's own runs, as runtime entries (evicted least
    /// recently used first, and not recorded as the user's pages) for a job a web page asked for
    /// (``PrecacheRunner/forPageJob(byteAllowance:)``).
    public var entryKind: EntryKind = .precached
    /// What the client that asked for the run may make Larder reach (nil: anything): a job a
    /// client on another machine submits to the running proxy never connects to the box's own
    /// loopback or link-local addresses, redirects included (``UpstreamRequest/reach``).
    public var reach: UpstreamReach?
    /// Whether a page's redirects are followed only within its own origin (a web page's job:
    /// ``PrecacheRunner/forPageJob(byteAllowance:)``), never to another site's URLs.
    public var redirectsStayOnOrigin = false
    /// The most bytes a run downloads (nil: no limit): once its downloads reach it, it starts no
    /// more, and the files left fail saying so; no one body may be larger (its transfer stops there).
    public var byteAllowance: Int64?

    /// What each download of a precache job inside the proxy waits before it starts while the
    /// proxy's clients are busy: with the default 8 at once, at most about 250 downloads start a
    /// second, about a tenth of a core for small files (16 ms left the client half its answers
    /// when the whole machine ran at nice 10: Benchmarks/RESULTS.md, "Hits while a precache runs
    /// in the proxy"); a big file's own transfer time dwarfs it.
    public static let pauseWhileClientsBusy: Duration = .milliseconds(32)

    /// The defaults: 8 downloads at once, at most 6 per host, no delay, 3 tries.
    public init() {}
}
