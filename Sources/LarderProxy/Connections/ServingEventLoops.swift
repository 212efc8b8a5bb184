/// How many event loops `larder serve` answers clients on.
///
/// Half the machine's cores, at least one, by default: the clients of a local proxy (a browser,
/// a webview, a game) run on the same machine and need cores of their own. When the event loops
/// and the client together want more cores than there are, the scheduler takes turns between
/// them, and an event loop that waits for its turn (up to a few milliseconds) delays every
/// connection it holds: on 2 cores, 2 event loops beside a client gave 1 KiB hits a p99 of 3 to 4
/// ms, one event loop about 1 ms at the same throughput (Benchmarks/RESULTS.md, "Where the hit
/// latency tail came from"). Work that is not socket I/O (misses, refreshes, precache, the index) runs on other
/// threads and is not bounded by this count.
public enum ServingEventLoops {
    /// The default count for a machine with `cores` cores.
    public static func defaultCount(cores: Int) -> Int {
        max(1, cores / 2)
    }

    /// The most event loops `--event-loops` accepts.
    public static let maximumCount = 256
}
