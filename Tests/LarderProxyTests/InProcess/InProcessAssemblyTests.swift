import LarderHTTP
import Testing

@testable import LarderProxy

/// The in-process harness runs the server's services as `larder serve` does
/// (``ProxyServer/services``): what only those services do is seen here too.
@Suite("In-process proxy: the server's services, as larder serve runs them")
struct InProcessAssemblyTests {
    static let url = "http://app.test/api/scores"

    @Test("a write queued while the origin cannot answer is replayed by the server's own write replayer once it can")
    func queuedWriteIsReplayed() async throws {
        let upstream = ScriptedUpstream()
        upstream.script(Self.url, .init(failure: .connectionRefused))
        try await InProcessProxy.with(
            upstream: upstream,
            configure: {
                $0.writeQueue = WriteQueueConfiguration(
                    rules: [WriteQueueRule(pattern: .glob(ExcludeGlob(Self.url)))],
                    backoff: ReplayBackoff(base: .milliseconds(100), step: .milliseconds(100), maximum: .milliseconds(300)))
            }
        ) { proxy in
            let body = #"{"score":7}"#
            let answer = try await proxy.send(
                "POST \(Self.url) HTTP/1.1\r\nHost: app.test\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(String(decoding: answer.prefix(12), as: UTF8.self) == "HTTP/1.1 202", "\(String(decoding: answer, as: UTF8.self))")
            upstream.script(Self.url, .init(body: "SAVED"))
            var delivered = false
            for _ in 0..<300 where !delivered {
                delivered = upstream.bodies.filter { $0 == Array(body.utf8) }.count >= 2
                if !delivered { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(delivered, "the queued write never reached the origin again")
        }
    }
}
