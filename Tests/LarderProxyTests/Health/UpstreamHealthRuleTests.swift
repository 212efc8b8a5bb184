import Foundation
import LarderUpstream
import NIOCore
import NIOPosix
import Testing

@testable import LarderProxy

/// What each kind of attempt to reach an origin counts for its back-off (docs/SERVING.md,
/// "Disconnected operation"), and that the decorators record it per origin.
@Suite("Upstream health: what counts, recorded in one place")
struct UpstreamHealthRuleTests {
    typealias Rule = UpstreamHealthRule

    static func error(_ kind: UpstreamError.Kind) -> UpstreamError {
        UpstreamError(kind: kind, message: "scripted", url: "http://origin.test/")
    }

    /// Every rule against every kind of outcome: an answer (2xx, 4xx, 5xx), a connection opened,
    /// each connect-phase failure, the failures after connecting, a cancellation, an error of
    /// another kind.
    static let table: [(Rule, String, Rule.Outcome, Rule.Evidence)] = {
        var rows: [(Rule, String, Rule.Outcome, Rule.Evidence)] = []
        let connectPhase: [UpstreamError.Kind] = [.dnsFailure, .connectionRefused, .connectTimeout, .tls]
        let afterConnecting: [UpstreamError.Kind] = [
            .timeout, .connectionReset, .truncatedBody, .cancelled, .requestBodyFailed, .invalidRequest, .other(7),
        ]
        for rule in [Rule.exchange, .declaredRequest, .tunnel, .webSocket] {
            for status in [200, 204, 304, 404, 500, 502, 503] {
                let shows: Rule.Evidence = rule == .declaredRequest && !(200..<300).contains(status) ? .nothing : .reachable
                rows.append((rule, "HTTP \(status)", .answered(status: status), shows))
            }
            rows.append((rule, "opened", .opened, .reachable))
            for kind in connectPhase {
                let shows: Rule.Evidence =
                    switch rule {
                    case .webSocket where kind == .tls: .reachable
                    default: .unreachable
                    }
                rows.append((rule, "\(kind)", .failed(Self.error(kind)), shows))
            }
            for kind in afterConnecting {
                let shows: Rule.Evidence = rule == .tunnel || rule == .webSocket ? .unreachable : .nothing
                rows.append((rule, "\(kind)", .failed(Self.error(kind)), shows))
            }
            let other: Rule.Evidence = rule == .tunnel || rule == .webSocket ? .unreachable : .nothing
            rows.append((rule, "cancelled task", .failed(CancellationError()), other))
            rows.append((rule, "not an UpstreamError", .failed(CocoaError(.fileNoSuchFile)), other))
        }
        return rows
    }()

    @Test("each rule's evidence for each outcome")
    func evidence() {
        for (rule, name, outcome, expected) in Self.table {
            #expect(rule.evidence(outcome) == expected, "\(rule), \(name)")
        }
    }

    @Test("a connect failure of an exchange ends in a back-off of its origin only, and any answer, a 5xx included, ends it")
    func recordedPerOrigin() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 2_000_000_000))
        let health = UpstreamHealthRegistry(policy: .init(threshold: 2), now: { clock.now })
        let scripted = ScriptedUpstream()
        scripted.script("http://down.test/a", .init(failure: .connectionRefused))
        scripted.script("http://slow.test/a", .init(failure: .timeout))
        scripted.script("http://up.test/a", .init(status: 503))
        let upstream = HealthRecordingUpstream(base: scripted, health: health, rule: .exchange)
        for url in ["http://down.test/a", "http://down.test/b?q", "http://slow.test/a", "http://slow.test/a"] {
            _ = try? await upstream.execute(UpstreamRequest(method: "GET", url: url))
        }
        _ = try await upstream.execute(UpstreamRequest(method: "GET", url: "http://up.test/a"))
        #expect(!health.shouldAttempt(origin: "http://down.test"), "two connect failures, whatever the path")
        #expect(health.snapshot()["http://down.test"]?.lastError?.contains("connectionRefused") == true)
        #expect(health.shouldAttempt(origin: "http://slow.test"))
        #expect(health.snapshot()["http://slow.test"] == nil, "a stall is no evidence either way")
        #expect(health.snapshot()["http://up.test"]?.lastSuccess == clock.now)

        scripted.script("http://down.test/a", .init(status: 500))
        clock.advance(by: 1)
        _ = try await upstream.execute(UpstreamRequest(method: "GET", url: "http://down.test/a"))
        #expect(health.shouldAttempt(origin: "http://down.test"))
        #expect(health.snapshot()["http://down.test"]?.consecutiveFailures == 0)
    }
}

/// The tunnels' and WebSockets' connector records under the origin the requests inside would have.
@Suite("Upstream health: tunnel connections")
struct HealthRecordingConnectorTests {
    @Test("a tunnel that opens counts its https origin reachable; one refused counts it unreachable")
    func tunnels() async throws {
        let health = UpstreamHealthRegistry(now: { Date(timeIntervalSince1970: 2_000_000_000) })
        let connector = HealthRecordingConnector(base: try UpstreamConnector(trust: UpstreamTrust()), health: health)
        let listening = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let open = try #require(listening.localAddress?.port)
        let closing = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let refused = try #require(closing.localAddress?.port)
        try await closing.close()
        defer { listening.close(promise: nil) }

        let channel = try await connector.openTunnel(
            host: "127.0.0.1", port: open, connectTimeout: .seconds(5), reach: nil, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        try await channel.channel.close()
        await #expect(throws: (any Error).self) {
            _ = try await connector.openTunnel(
                host: "127.0.0.1", port: refused, connectTimeout: .seconds(5), reach: nil,
                eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        }
        let origins = health.snapshot()
        #expect(origins["https://127.0.0.1:\(open)"]?.lastSuccess != nil)
        #expect(origins["https://127.0.0.1:\(open)"]?.consecutiveFailures == 0)
        #expect(origins["https://127.0.0.1:\(refused)"]?.consecutiveFailures == 1)
        #expect(origins["https://127.0.0.1:\(refused)"]?.lastSuccess == nil)
    }
}
