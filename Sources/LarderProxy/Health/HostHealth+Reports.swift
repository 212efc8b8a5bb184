import Foundation
import LarderHTTP
import LarderIntrospection

extension HostReport {
    /// The report of `health` at `now`.
    public init(origin: String, health: HostHealth, now: Date) {
        let backingOff = !health.shouldAttempt(now: now)
        self.init(
            origin: origin,
            host: (try? HTTPURL(parsing: origin + "/"))?.host ?? origin,
            state: backingOff ? "backing-off" : (health.consecutiveFailures > 0 ? "failing" : "ok"),
            consecutiveFailures: health.consecutiveFailures,
            lastError: health.lastError,
            backoffUntil: backingOff ? health.backoffUntil : nil,
            lastSuccess: health.lastSuccess,
            browser: nil
        )
    }
}

extension Connectivity {
    /// The state from offline mode and each origin's `health`; `isApp` says which origins the app's
    /// requests went to (``AppOriginRegistry``).
    public init(offline: Bool, health: [String: HostHealth], isApp: (String) -> Bool) {
        self.init(
            offline: offline,
            unreachableOrigins: health.filter { $0.value.consecutiveFailures > 0 && isApp($0.key) }.keys.sorted())
    }
}
