import Foundation
import LarderHTTP
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderNIOUpstream
@testable import LarderUpstream

@Suite("Upstream contract: failures")
struct UpstreamContractFailureTests {
    @Test("a refused connection is .connectionRefused and a connect failure", arguments: UpstreamUnderTest.allCases)
    func connectionRefused(_ client: UpstreamUnderTest) async throws {
        let refusing = try RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)/x"
        let upstream = try client.make()
        defer { upstream.close() }

        let error = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: url)) }
        withExtendedLifetime(refusing) {}

        #expect(error?.kind == .connectionRefused)
        #expect(error?.isConnectFailure == true)
        #expect(error?.url == url)
    }

    @Test("an unresolvable host is .dnsFailure and a connect failure", arguments: UpstreamUnderTest.allCases)
    func dnsFailure(_ client: UpstreamUnderTest) async throws {
        let upstream = try client.make()
        defer { upstream.close() }

        let error = await upstreamError {
            _ = try await upstream.execute(UpstreamRequest(url: "http://nonexistent.invalid/"))
        }

        #expect(error?.kind == .dnsFailure)
        #expect(error?.isConnectFailure == true)
        #expect(error?.message.contains("nonexistent.invalid") == true)
    }

    @Test("a connection that is never accepted is .connectTimeout", arguments: UpstreamUnderTest.allCases)
    func connectTimeout(_ client: UpstreamUnderTest) async throws {
        let blackhole = try FullBacklogListener()
        defer { blackhole.close() }
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(url: "http://127.0.0.1:\(blackhole.port)/")
        request.connectTimeout = .milliseconds(500)
        let clock = ContinuousClock()
        let start = clock.now

        let error = await upstreamError { _ = try await upstream.execute(request) }

        #expect(error?.kind == .connectTimeout)
        #expect(error?.isConnectFailure == true)
        #expect(clock.now - start < .seconds(25))
    }

    @Test(
        "an origin that does not answer within the idle timeout is .timeout, not a connect failure", arguments: UpstreamUnderTest.allCases)
    func headIdleTimeout(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/stuck", TestResponse(faults: [.delayHead(.seconds(40))]))
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(url: origin.url("/stuck"))
        request.idleTimeout = .seconds(1)
        let clock = ContinuousClock()
        let start = clock.now

        let error = await upstreamError { _ = try await upstream.execute(request) }

        #expect(error?.kind == .timeout)
        #expect(error?.isConnectFailure == false)
        #expect(clock.now - start < .seconds(25))
        try await origin.stop()
    }

    @Test("the total timeout bounds a slow head", arguments: UpstreamUnderTest.allCases)
    func totalTimeout(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/stuck", TestResponse(faults: [.delayHead(.seconds(40))]))
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(url: origin.url("/stuck"))
        request.totalTimeout = .milliseconds(700)
        let clock = ContinuousClock()
        let start = clock.now

        let error = await upstreamError { _ = try await upstream.execute(request) }

        #expect(error?.kind == .timeout)
        #expect(clock.now - start < .seconds(25))
        try await origin.stop()
    }

    @Test("a body that stalls longer than the idle timeout throws .timeout after its first bytes", arguments: UpstreamUnderTest.allCases)
    func bodyIdleTimeout(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/stall",
            TestResponse(body: .generated(length: 30_000), faults: [.chunkSize(10_000), .delayChunks(.seconds(60))])
        )
        let upstream = try client.make()
        defer { upstream.close() }
        var request = UpstreamRequest(url: origin.url("/stall"))
        // Long enough that a busy machine (the whole suite in parallel on 2 cores) still delivers
        // the head in time.
        request.idleTimeout = .seconds(10)
        let clock = ContinuousClock()
        let start = clock.now

        let response = try await upstream.execute(request)
        let partial = await response.body.collectUntilFailure()

        #expect((partial.error as? UpstreamError)?.kind == .timeout)
        #expect(Bytes(partial.bytes) == Bytes(GeneratedBody.bytes(0..<Int64(partial.bytes.count))))
        #expect(partial.bytes.count < 30_000)
        // curl averages the speed over 5 seconds, so a stall after bytes flowed shows up to 5 s late
        // (NIOUpstream's watchdog is exact); either way it fails well before the origin's next piece (60 s).
        #expect(clock.now - start < .seconds(45))
        try await origin.stop()
    }

    @Test("a body cut short of its Content-Length throws .truncatedBody after the bytes that came", arguments: UpstreamUnderTest.allCases)
    func shortContentLength(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/short", TestResponse(body: .generated(length: 100_000), faults: [.closeAfter(bytes: 40_000)]))
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/short")))
        let partial = await response.body.collectUntilFailure()

        #expect(response.head.status == 200)
        if client.deliversBytesBeforeACloseMidBody {
            #expect(Bytes(partial.bytes) == Bytes(GeneratedBody.bytes(0..<40_000)))
        } else {
            #expect(partial.bytes.count <= 40_000)
            #expect(Bytes(partial.bytes) == Bytes(GeneratedBody.bytes(0..<Int64(partial.bytes.count))))
        }
        let error = partial.error as? UpstreamError
        #expect(error?.kind == .truncatedBody)
        #expect(error?.isConnectFailure == false)
        #expect(error?.message.contains("100000") == true)
        try await origin.stop()
    }

    @Test("a connection reset mid-body throws .truncatedBody after the bytes that came", arguments: UpstreamUnderTest.allCases)
    func resetMidBody(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/reset", TestResponse(body: .generated(length: 100_000), faults: [.resetAfter(bytes: 40_000)]))
        let upstream = try client.make()
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/reset")))
        let partial = await response.body.collectUntilFailure()

        #expect(partial.bytes.count <= 40_000)
        #expect(Bytes(partial.bytes) == Bytes(GeneratedBody.bytes(0..<Int64(partial.bytes.count))))
        #expect((partial.error as? UpstreamError)?.kind == .truncatedBody)
        try await origin.stop()
    }

    @Test("a connection closed without a response is .connectionReset", arguments: UpstreamUnderTest.allCases)
    func closedWithoutResponse(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/hangup", TestResponse(faults: [.closeWithoutResponse]))
        let upstream = try client.make()
        defer { upstream.close() }

        let error = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: origin.url("/hangup"))) }

        #expect(error?.kind == .connectionReset)
        #expect(error?.isConnectFailure == false)
        try await origin.stop()
    }

    @Test(
        "cancelling the task awaiting the head throws CancellationError promptly and aborts the transfer",
        arguments: UpstreamUnderTest.allCases)
    func taskCancellationWhileAwaitingHead(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/stuck", TestResponse(faults: [.delayHead(.seconds(60))]))
        origin.setRoute("/next", .text("next"))
        // One connection per host: the next request can only go through if the stuck one was aborted.
        let upstream = try client.make(.init(maxConnectionsPerHost: 1))
        defer { upstream.close() }

        let task = Task { try await upstream.execute(UpstreamRequest(url: origin.url("/stuck"))) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.result

        // Far below the 60 s the head would take: bounds generous enough for a loaded machine.
        #expect(clock.now - start < .seconds(30))
        #expect(throws: CancellationError.self) { try result.get() }
        let next = try await withTimeLimit(.seconds(30)) {
            try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
        }
        #expect(next == Array("next".utf8))
        try await origin.stop()
    }

    @Test("a task cancelled before it calls execute throws CancellationError without a request", arguments: UpstreamUnderTest.allCases)
    func alreadyCancelledTask(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/never", .text("no"))
        let upstream = try client.make()
        defer { upstream.close() }

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await upstream.execute(UpstreamRequest(url: origin.url("/never")))
        }

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(origin.requestCount("/never") == 0)
        try await origin.stop()
    }

    @Test(
        "shutdown fails in-flight transfers with .cancelled and later requests too; it is idempotent", arguments: UpstreamUnderTest.allCases
    )
    func shutdownCancels(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/stuck", TestResponse(faults: [.delayHead(.seconds(20))]))
        let upstream = try client.make()

        let inFlight = Task { try await upstream.execute(UpstreamRequest(url: origin.url("/stuck"))) }
        try await Task.sleep(for: .milliseconds(300))
        await upstream.shutdown()
        await upstream.shutdown()

        let error = await upstreamError { _ = try await inFlight.value }
        #expect(error?.kind == .cancelled)
        let later = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: origin.url("/stuck"))) }
        #expect(later?.kind == .cancelled)
        try await origin.stop()
    }
}

/// A listening socket whose accept queue is full, so new connections to it are never accepted (the kernel drops
/// their SYNs) and connecting times out, without sending anything off the machine.
final class FullBacklogListener: Sendable {
    let port: Int
    private let sockets: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else {
            throw POSIXError(.EMFILE)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 0) == 0 else {
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        var sockets = [listener]
        // Fill the accept queue (backlog 0 holds one connection) with connections that are never accepted.
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
            sockets.append(client)
        }
        self.sockets = sockets
        self.port = Int(UInt16(bigEndian: address.sin_port))
        // Give the queued handshakes a moment to complete and fill the queue.
        usleep(100_000)
    }

    func close() {
        for socket in self.sockets {
            _ = Glibc.close(socket)
        }
    }
}
