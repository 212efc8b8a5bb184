import Benchmark

// Micro benchmarks of every piece of work a cache hit runs, each with its wall time and its
// mallocs (package-benchmark's malloc interposer). Each sample runs 1,000 operations (scalingFactor
// .kilo) and the figures are per operation; `Benchmarks/run --micro` puts the p50s (with the
// fastest sample's time, steadier on a busy machine) in RESULTS.md. Every benchmark checks what each
// operation returns (and the whole result once per sample where that check costs more), so none
// measures a no-op; a wrong result fails the run. The tool lists benchmarks sorted by name, so each
// name starts with its number in the order below (`inHitOrder(_:)`).
//
// In the order a hit runs them (RequestBenchmarks.swift, StoreBenchmarks.swift,
// AnswerBenchmarks.swift, WholeHitBenchmarks.swift):
//
// - `HTTPURL(parsing:)` of the request target: a plain asset URL, and a messy one (upper case,
//   default port, dot segments, escapes, a `utm_` parameter, a fragment).
// - `RequestRoute.classify`: an absolute-form GET with a browser's usual header fields, to its
//   `.forward(url)` (limits, parsing the target, "is it the proxy itself").
// - `CacheKey(url:filter:)` of a parsed URL, plain and messy: the normalised key.
// - `Store.rememberedLookup(of:)`: the memo hit the immediate path looks for first.
// - `Store.variants(of:)`: from the memo, and read from the index (a store that trusts no memo)
//   at 100 and 100,000 entries.
// - `Store.entry(for:)`: the index read by key, hit and miss, at 100 and 100,000 entries.
// - `ResponseFreshness` computed from a stored entry's headers, and as every hit gets it,
//   remembered per stored head (`ForwardProxy.freshness(of:)`).
// - `CacheStatus` of a hit with its ttl, formatted as the header's value.
// - `StoredAnswer.plan` of a stored 1 KiB response for a plain GET (200), a conditional GET that
//   matches its ETag (304) and a Range GET (206), with the request as the ordinary path describes it.
// - The head serialised: the status line and a planned 200's headers as `name: value` lines, as
//   the immediate path writes them.
// - One whole immediate hit (`ImmediateHits.answer`, on the event loop): a request head in, the
//   answer's head and body bytes out, from the prepared answer (a hot target); and a target's first
//   immediate hit, which prepares its answer from the remembered lookup; and the prepared hit read
//   inside intercepted TLS (an origin-form target; TLS itself not included).
//
// The stores are filled once through the ordinary write path, in /dev/shm when there is one:
// 100 entries of 1 KiB and 100,000 of a few bytes, with the header fields nginx sends for a static
// file. The proxy's internal pieces are reached through `@_spi(Benchmarks)` declarations
// (LarderProxy's `BenchmarkHitPath`, `StoredAnswer.Request(head:)`, `CachedEntry.storedForAnswer`;
// LarderStore's `Store(directory:lookupTrust:)`), which only the benchmarks and their test
// (Tests/LarderProxyTests/BenchmarkHitPathTests.swift) import. A run takes about five minutes.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        // Nanoseconds throughout: figures in microseconds are whole numbers, too coarse here.
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    requestBenchmarks()
    storeBenchmarks()
    answerBenchmarks()
    wholeHitBenchmarks()
    interceptedHitBenchmarks()

    Benchmark.teardown = {
        try? await Stores.shared.removeAll()
    }
}
