import CoreMetrics
import LarderHTTP

/// What the proxy counts as it happens, for `/metrics`: upstream failures (see
/// ``FailureCountingUpstream``) and write replays by verdict.
///
/// The counters are swift-metrics objects made with the factory the server is given
/// (`CoreMetrics.Counter(label:dimensions:factory:)`; LarderDevOffline's `MetricsExposition` gives a
/// Prometheus one over a registry of the server's own): the process-wide `MetricsSystem` is never
/// bootstrapped, so an app that embeds `ProxyServer` keeps its own metrics backend, and two
/// servers in one process do not share counters. Values the proxy already keeps (answers by
/// outcome, store totals, upstream health) are read when `/metrics` is scraped instead.
final class ProxyMetrics: Sendable {
    private let transportFailures: CoreMetrics.Counter
    private let serverErrors: CoreMetrics.Counter
    private let delivered: CoreMetrics.Counter
    private let deadLetters: CoreMetrics.Counter
    private let retries: CoreMetrics.Counter

    /// Makes the counters with `factory`, every one registered up front so that it shows, at 0,
    /// from the first scrape.
    init(factory: any MetricsFactory) {
        self.transportFailures = CoreMetrics.Counter(
            label: "larder_upstream_errors_total", dimensions: [("kind", "transport")], factory: factory)
        self.serverErrors = CoreMetrics.Counter(
            label: "larder_upstream_errors_total", dimensions: [("kind", "status_5xx")], factory: factory)
        let replays = { (outcome: String) in
            CoreMetrics.Counter(label: "larder_write_replays_total", dimensions: [("outcome", outcome)], factory: factory)
        }
        self.delivered = replays("delivered")
        self.deadLetters = replays("dead-letter")
        self.retries = replays("retry")
    }

    /// Counts an upstream request that failed before a response head arrived (DNS, connect, TLS, timeout).
    func recordTransportFailure() {
        self.transportFailures.increment()
    }

    /// Counts an upstream answer with a 5xx status.
    func recordServerError() {
        self.serverErrors.increment()
    }

    /// Counts one delivery attempt of a queued write by its verdict.
    func recordReplay(_ verdict: ReplayVerdict) {
        switch verdict {
        case .delivered: self.delivered.increment()
        case .deadLetter: self.deadLetters.increment()
        case .retry: self.retries.increment()
        }
    }
}
