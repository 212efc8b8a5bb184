import CoreMetrics
import Foundation
import LarderHTTP
import LarderStore
import Prometheus
import Synchronization

/// Larder's Prometheus metrics, served at `/metrics`.
///
/// Each server has its own `PrometheusCollectorRegistry`, and the metrics are swift-metrics objects
/// made with an explicit factory over that registry (`CoreMetrics.Counter(label:dimensions:factory:)`): the
/// process-wide `MetricsSystem` is never bootstrapped, so an app that embeds `ProxyServer` keeps its
/// own metrics backend, and two servers in one process do not share counters. (swift-metrics' API
/// takes no help text, so the exposition has no `# HELP` lines; the names say what they count.)
///
/// Values that the proxy already keeps (answers by outcome, store totals, game readiness, upstream
/// health) are brought up to date when `/metrics` is scraped; only upstream failures are counted as
/// they happen (see ``FailureCountingUpstream``).
final class ProxyMetrics: Sendable {
    /// The registry `/metrics` emits.
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let transportFailures: CoreMetrics.Counter
    private let serverErrors: CoreMetrics.Counter
    /// What `larder_requests_total` was last brought up to, per outcome.
    private let reportedOutcomes = Mutex<[ProxyStatistics.Outcome: Int]>([:])

    /// Creates the metrics with a registry of their own.
    init() {
        self.registry = PrometheusCollectorRegistry()
        self.factory = PrometheusMetricsFactory(registry: self.registry)
        self.transportFailures = CoreMetrics.Counter(
            label: "larder_upstream_errors_total", dimensions: [("kind", "transport")], factory: self.factory)
        self.serverErrors = CoreMetrics.Counter(
            label: "larder_upstream_errors_total", dimensions: [("kind", "status_5xx")], factory: self.factory)
        for outcome in ProxyStatistics.Outcome.allCases {
            // Registered up front so every outcome shows, at 0, from the first scrape.
            _ = self.requestCounter(outcome)
        }
        for outcome in ["delivered", "dead-letter", "retry"] {
            _ = self.replayCounter(outcome)
        }
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
        case .delivered: self.replayCounter("delivered").increment()
        case .deadLetter: self.replayCounter("dead-letter").increment()
        case .retry: self.replayCounter("retry").increment()
        }
    }

    /// Brings the scrape-time values up to date and returns the Prometheus text exposition.
    func exposition(store: Store, statistics: ProxyStatistics, health: UpstreamHealthRegistry, offline: OfflineSwitch, maxSize: Int64?)
        async throws -> String
    {
        let counts = statistics.counts()
        let increments = self.reportedOutcomes.withLock { reported -> [(ProxyStatistics.Outcome, Int)] in
            var increments: [(ProxyStatistics.Outcome, Int)] = []
            for outcome in ProxyStatistics.Outcome.allCases {
                let delta = (counts[outcome] ?? 0) - (reported[outcome] ?? 0)
                if delta > 0 {
                    increments.append((outcome, delta))
                    reported[outcome] = counts[outcome]
                }
            }
            return increments
        }
        for (outcome, delta) in increments {
            self.requestCounter(outcome).increment(by: Int64(delta))
        }

        let totals = try await store.totals()
        self.gauge("larder_store_entries", ("kind", "runtime")).record(totals.runtimeEntries)
        self.gauge("larder_store_entries", ("kind", "precached")).record(totals.precachedEntries)
        self.gauge("larder_store_bytes", ("kind", "runtime")).record(totals.runtimeBytes)
        self.gauge("larder_store_bytes", ("kind", "precached")).record(totals.precachedBytes)
        if let maxSize {
            CoreMetrics.Gauge(label: "larder_store_budget_bytes", factory: self.factory).record(maxSize)
        }

        let games = try await store.games()
        for state in [GameState.ready, .partial, .failed, .skipped] {
            self.gauge("larder_precache_games", ("state", state.rawValue)).record(games.filter { $0.state == state }.count)
        }
        self.gauge("larder_precache_files", ("state", "listed")).record(games.reduce(0) { $0 + $1.filesListed })
        self.gauge("larder_precache_files", ("state", "cached")).record(games.reduce(0) { $0 + $1.filesCached })

        let writes = try await store.queuedWriteCounts()
        for state in [QueuedWrite.State.pending, .deadLetter] {
            self.gauge("larder_write_queue", ("state", state.rawValue)).record(writes[state] ?? 0)
        }

        CoreMetrics.Gauge(label: "larder_offline_mode", factory: self.factory).record(offline.isOffline ? 1 : 0)
        let now = Date()
        for (origin, state) in health.snapshot() {
            self.gauge("larder_upstream_backing_off", ("origin", origin)).record(state.shouldAttempt(now: now) ? 0 : 1)
            self.gauge("larder_upstream_consecutive_failures", ("origin", origin)).record(state.consecutiveFailures)
        }
        return self.registry.emitToString()
    }

    private func replayCounter(_ outcome: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "larder_write_replays_total", dimensions: [("outcome", outcome)], factory: self.factory)
    }

    private func requestCounter(_ outcome: ProxyStatistics.Outcome) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "larder_requests_total", dimensions: [("outcome", outcome.rawValue)], factory: self.factory)
    }

    private func gauge(_ label: String, _ dimension: (String, String)) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: [dimension], factory: self.factory)
    }
}
