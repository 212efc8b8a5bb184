import Foundation
import LarderIntrospection
import Testing

@testable import LarderProxy

/// During a back-off one request a second goes to the origin as a probe, and its answer ends the
/// back-off (docs/SERVING.md, "Disconnected operation"); the badge's state (docs/SERVING.md, "Own pages").
@Suite("Back-off probes and connectivity")
struct BackoffProbeTests {
    private static let policy = HostHealth.Policy(threshold: 2, initialWindow: 10, maximumWindow: 120, probeInterval: 1)
    private static let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// A host backing off since `t0`: two connect failures then.
    private static func backingOff() -> HostHealth {
        var health = HostHealth()
        health.recordConnectFailure("refused", now: t0, policy: policy)
        health.recordConnectFailure("refused", now: t0, policy: policy)
        return health
    }

    @Test("which requests go as probes: one at most per probe interval while backing off, every one outside a back-off")
    func probes() {
        // (seconds after t0 of each request, whether each goes to the network)
        let cases: [(String, [Double], [Bool])] = [
            (
                "the first request in a back-off goes; the ones after it within a second do not", [0, 0.2, 0.5, 0.99],
                [true, false, false, false]
            ),
            ("one a second: at 0, 1 and 2.5 s", [0, 0.5, 1, 1.5, 2.5], [true, false, true, false, true]),
            ("a request after the window ends always goes", [10, 10, 10.1], [true, true, true]),
            ("a clock that went back starts afresh, so probes never stall till it catches up", [5, 4, 4.5], [true, true, false]),
        ]
        for (name, times, expected) in cases {
            var health = Self.backingOff()
            let admitted = times.map { health.admit(now: Self.t0.addingTimeInterval($0), policy: Self.policy) }
            #expect(admitted == expected, "\(name)")
        }
        var healthy = HostHealth()
        var healthyAdmitted: [Bool] = []
        for _ in 0..<3 { healthyAdmitted.append(healthy.admit(now: Self.t0, policy: Self.policy)) }
        #expect(healthyAdmitted == [true, true, true], "a healthy host is never held back")
    }

    @Test("a probe's answer ends the back-off at once; a failed probe leaves it on, the next probe a second later")
    func probeOutcome() {
        var health = Self.backingOff()
        let first = health.admit(now: Self.t0.addingTimeInterval(1), policy: Self.policy)
        health.recordConnectFailure("refused", now: Self.t0.addingTimeInterval(1), policy: Self.policy)
        let tooSoon = health.admit(now: Self.t0.addingTimeInterval(1.5), policy: Self.policy)
        let next = health.admit(now: Self.t0.addingTimeInterval(2), policy: Self.policy)
        #expect([first, tooSoon, next] == [true, false, true])
        health.recordSuccess(now: Self.t0.addingTimeInterval(2.1))
        #expect(health.shouldAttempt(now: Self.t0.addingTimeInterval(2.1)))
        #expect(health.consecutiveFailures == 0)
        var after: [Bool] = []
        for seconds in [2.2, 2.3, 2.4] { after.append(health.admit(now: Self.t0.addingTimeInterval(seconds), policy: Self.policy)) }
        #expect(after == [true, true, true], "after the back-off every request goes")
    }

    @Test("the registry lets one probe a second through per origin: a dead origin's probe does not hold another's")
    func registry() {
        let clock = TestClock(Self.t0)
        let registry = UpstreamHealthRegistry(policy: Self.policy, now: { clock.now })
        for origin in ["http://a.test", "http://b.test"] {
            registry.recordConnectFailure(origin: origin, description: "refused")
            registry.recordConnectFailure(origin: origin, description: "refused")
        }
        clock.advance(by: 0.5)
        #expect(registry.admit(origin: "http://a.test"))
        #expect(!registry.admit(origin: "http://a.test"))
        #expect(registry.admit(origin: "http://b.test"))
        #expect(registry.admit(origin: "http://never-seen.test"))
        #expect(!registry.shouldAttempt(origin: "http://a.test"), "asking whether it backs off is no probe")
    }

    @Test("the badge: offline mode, the app's origins whose last connection failed, or online")
    func connectivity() {
        var down = HostHealth()
        down.recordConnectFailure("refused", now: Self.t0, policy: Self.policy)
        var up = HostHealth()
        up.recordSuccess(now: Self.t0)
        let health = ["http://b.test": down, "http://a.test": Self.backingOff(), "http://ok.test": up, "https://update.browser.test": down]
        let isApp = { (origin: String) in origin != "https://update.browser.test" }
        let cases: [(String, Bool, [String: HostHealth], Connectivity.State, [String])] = [
            ("offline mode wins", true, health, .offline, ["http://a.test", "http://b.test"]),
            (
                "the app's origins that failed, backing off or not; not the browser's", false, health, .originsUnreachable,
                ["http://a.test", "http://b.test"]
            ),
            ("every origin answering", false, ["http://ok.test": up], .online, []),
            ("only the browser's own host down", false, ["https://update.browser.test": down, "http://ok.test": up], .online, []),
            ("nothing contacted yet", false, [:], .online, []),
        ]
        for (name, offline, health, state, unreachable) in cases {
            let connectivity = Connectivity(offline: offline, health: health, isApp: isApp)
            #expect(connectivity.state == state, "\(name)")
            #expect(connectivity.unreachableOrigins == unreachable, "\(name)")
        }
    }
}
