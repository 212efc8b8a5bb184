import CoreMetrics
import Foundation
import LarderIntrospection
import LarderStore
import Prometheus
import Synchronization

/// Larder's Prometheus metrics, served at `/metrics`.
///
/// Each server has its own `PrometheusCollectorRegistry`: give ``factory`` to the `ProxyServer`
/// (its `metrics`), which counts upstream failures and write replays through it as they happen,
/// and this to the pages (``DevOfflinePages``), which emit the registry. The metrics are
/// swift-metrics objects made with that explicit factory (`CoreMetrics.Counter(label:dimensions:factory:)`):
/// the process-wide `MetricsSystem` is never bootstrapped, so an app that embeds the proxy keeps
/// its own metrics backend, and two servers in one process do not share counters. (swift-metrics'
/// API takes no help text, so the exposition has no `# HELP` lines; the names say what they count.)
///
/// Values that the proxy already keeps (answers by outcome, store totals, game readiness, upstream
/// health) are brought up to date when `/metrics` is scraped; the per-origin gauges cover the
/// origins /dev/offline lists (``ProxySnapshot/hosts``).
public final class MetricsExposition: Sendable {
    /// The registry `/metrics` emits.
    let registry: PrometheusCollectorRegistry
    private let prometheus: PrometheusMetricsFactory
    /// What `larder_requests_total` was last brought up to, per outcome.
    private let reportedOutcomes = Mutex<[RequestOutcome: Int]>([:])
    /// The origins the per-origin gauges were last recorded for (``ProxySnapshot/hosts``).
    private let labelledOrigins = Mutex<Set<String>>([])

    /// Creates the metrics with a registry of their own.
    public init() {
        self.registry = PrometheusCollectorRegistry()
        self.prometheus = PrometheusMetricsFactory(registry: self.registry)
        for outcome in RequestOutcome.allCases {
            // Registered up front so every outcome shows, at 0, from the first scrape.
            _ = self.requestCounter(outcome)
        }
    }

    /// The factory over the registry, for the server to count through.
    public var factory: any MetricsFactory {
        self.prometheus
    }

    /// Brings the scrape-time values up to date with `store` and the proxy's `snapshot` (offline
    /// mode: `offline`), and returns the Prometheus text exposition.
    func exposition(store: Store, snapshot: ProxySnapshot, offline: Bool, maxSize: Int64?) async throws -> String {
        let counts = snapshot.answers
        let increments = self.reportedOutcomes.withLock { reported -> [(RequestOutcome, Int)] in
            var increments: [(RequestOutcome, Int)] = []
            for outcome in RequestOutcome.allCases {
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
            CoreMetrics.Gauge(label: "larder_store_budget_bytes", factory: self.prometheus).record(maxSize)
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

        CoreMetrics.Gauge(label: "larder_offline_mode", factory: self.prometheus).record(offline ? 1 : 0)
        let reported = snapshot.hosts
        // Under the lock, so two scrapes at once agree on which series are left: an origin no
        // longer reported loses its series, and the labels stay as bounded as the report.
        self.labelledOrigins.withLock { labelled in
            for host in reported {
                self.gauge("larder_upstream_backing_off", ("origin", host.origin)).record(host.state == "backing-off" ? 1 : 0)
                self.gauge("larder_upstream_consecutive_failures", ("origin", host.origin)).record(host.consecutiveFailures)
            }
            let current = Set(reported.map(\.origin))
            for origin in labelled.subtracting(current) {
                self.gauge("larder_upstream_backing_off", ("origin", origin)).destroy()
                self.gauge("larder_upstream_consecutive_failures", ("origin", origin)).destroy()
            }
            labelled = current
        }
        return self.registry.emitToString()
    }

    private func requestCounter(_ outcome: RequestOutcome) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "larder_requests_total", dimensions: [("outcome", outcome.rawValue)], factory: self.prometheus)
    }

    private func gauge(_ label: String, _ dimension: (String, String)) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: [dimension], factory: self.prometheus)
    }
}
