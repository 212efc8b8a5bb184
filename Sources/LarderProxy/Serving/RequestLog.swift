import Foundation
import LarderHTTP
import Logging
import NIOHTTP1

/// Where an answered request is counted (statistics for /dev/offline and /metrics) and logged.
struct RequestLog: Sendable {
    let statistics: ProxyStatistics
    let logger: Logger
    /// The clock requests are dated by (the proxy's).
    let now: @Sendable () -> Date
    /// Token values the URL is recorded and logged without (a client may send the URL a declared
    /// request's `{{env:NAME}}` made).
    var secrets = SubstitutedSecrets.none

    /// Counts and logs `head`'s answer, under `target` when given (the absolute URL of an
    /// origin-form request inside a tunnel), else under its request target. `cacheStatusValue` is
    /// `cacheStatus`'s field value when the caller wrote it already (made once per answer).
    func record(
        _ head: HTTPRequestHead, target: String? = nil, status: Int, cacheStatus: CacheStatus?, cacheStatusValue: String? = nil,
        since started: ContinuousClock.Instant
    ) {
        let value = cacheStatusValue ?? cacheStatus?.description
        let url = self.secrets.redacting(target ?? head.uri)
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        self.statistics.record(
            ProxyStatistics.RecentRequest(
                time: self.now(),
                method: head.method.wireName,
                url: url,
                status: status,
                cacheStatus: value,
                outcome: .classify(status: status, cacheStatus: cacheStatus),
                milliseconds: milliseconds
            )
        )
        self.logger.info(
            "\(head.method.wireName) \(url) \(status)",
            metadata: [
                "cache": "\(value ?? "-")",
                "ms": "\(String(format: "%.1f", milliseconds))",
            ]
        )
    }
}
