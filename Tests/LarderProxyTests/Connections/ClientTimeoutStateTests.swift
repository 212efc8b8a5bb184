import LarderHTTP
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import LarderProxy

@Suite("Client timeouts: deadlines per phase")
struct ClientTimeoutStateTests {
    private static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    private static func at(_ seconds: Int64) -> NIODeadline { Self.start + .seconds(seconds) }

    private static var limits: ClientLimits {
        var limits = ClientLimits()
        limits.headerTimeout = .seconds(30)
        limits.idleTimeout = .seconds(60)
        limits.tunnelIdleTimeout = .seconds(600)
        limits.halfClosedTimeout = .seconds(30)
        return limits
    }

    @Test("a first request that never arrives is closed at the header timeout, silently")
    func firstRequestNeverArrives() {
        let state = ClientTimeoutState(limits: Self.limits, now: Self.start)
        #expect(state.isWaitingForRequest)  // a connection that sent nothing may make room for others
        #expect(state.deadline == Self.at(30))
        #expect(state.expire(now: Self.at(29)) == .checkAgain(at: Self.at(30)))
        #expect(state.expire(now: Self.at(30)) == .close(requestTimeout: false))
    }

    @Test("a slowloris head (a byte now and then) is closed at the header timeout with 408")
    func slowloris() {
        var state = ClientTimeoutState(limits: Self.limits, now: Self.start)
        for second in 1...40 {
            _ = state.bytesRead(now: Self.at(Int64(second)))
        }
        #expect(state.expire(now: Self.at(30)) == .close(requestTimeout: true))
    }

    @Test("the table: each event moves the deadline as the phase says")
    func table() {
        var state = ClientTimeoutState(limits: Self.limits, now: Self.start)
        state.requestHeadReceived()
        #expect(state.deadline == nil)  // busy: upstream timeouts apply
        #expect(state.expire(now: Self.at(10_000)) == .checkAgain(at: nil))
        state.responsesComplete(now: Self.at(100))
        #expect(state.isWaitingForRequest)
        #expect(state.deadline == Self.at(160))  // kept alive
        let armed = state.bytesRead(now: Self.at(150))
        #expect(armed)  // a next request begins: the header timeout runs
        #expect(!state.isWaitingForRequest)
        #expect(state.deadline == Self.at(180))
        let armedAgain = state.bytesRead(now: Self.at(170))
        #expect(!armedAgain)
        state.requestHeadReceived()
        state.responsesComplete(now: Self.at(200))
        state.tunnelStarted(now: Self.at(200))
        #expect(state.isTunnel)
        #expect(state.deadline == Self.at(800))
        _ = state.bytesRead(now: Self.at(500))
        state.bytesWritten(now: Self.at(700))
        #expect(state.deadline == Self.at(1300))  // activity either way keeps a tunnel open
        state.halfClosed(now: Self.at(710))
        #expect(state.deadline == Self.at(740))  // one side finished: the other gets 30 s
        #expect(state.expire(now: Self.at(740)) == .close(requestTimeout: false))
    }

    @Test("the handler closes an idle channel at its deadline and answers 408 to a head cut off")
    func handlerOnEmbeddedChannel() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(ClientTimeouts(limits: Self.limits, now: loop.now))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET http://a.example/ HTT"))
        loop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        let written = try channel.readOutbound(as: ByteBuffer.self)
        #expect(written.map { String(buffer: $0) }?.hasPrefix("HTTP/1.1 408") == true)
        #expect(!channel.isActive)
    }

    @Test("a busy connection is never timed out by the handler; afterwards the idle timeout applies")
    func handlerBusyThenIdle() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(ClientTimeouts(limits: Self.limits, now: loop.now))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        channel.pipeline.syncOperations.triggerUserOutboundEvent(ClientConnectionEvent.requestHeadReceived, promise: nil)
        loop.advanceTime(by: .seconds(3600))
        #expect(channel.isActive)
        channel.pipeline.syncOperations.triggerUserOutboundEvent(ClientConnectionEvent.responsesComplete, promise: nil)
        loop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)  // an idle close says nothing
    }

    @Test("a request answered at once (an immediate hit) leaves the connection idle from then")
    func handlerRequestAnswered() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(ClientTimeouts(limits: Self.limits, now: loop.now))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        loop.advanceTime(by: .seconds(5))
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        channel.pipeline.syncOperations.triggerUserOutboundEvent(ClientConnectionEvent.requestAnswered, promise: nil)
        loop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }
}

@Suite("Connection registry: limits")
struct ConnectionRegistryTests {
    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test("at the limit the connection that waited longest for a request is closed; busy ones never are")
    func evictsTheLongestWaiting() throws {
        let registry = ConnectionRegistry()
        let counts = ConnectionCounts(total: 3, perClient: 10)
        let channels = try (0..<3).map { _ in try self.channel() }
        var lifecycles: [ConnectionLifecycle] = []
        for (index, channel) in channels.enumerated() {
            guard case .admitted(let lifecycle) = registry.admit(channel, client: "a\(index)", limits: counts) else {
                Issue.record("refused under the limit")
                return
            }
            lifecycles.append(lifecycle)
        }
        lifecycles[0].setWaitingForRequest(since: .uptimeNanoseconds(200))
        lifecycles[1].setWaitingForRequest(since: .uptimeNanoseconds(100))
        // lifecycles[2] is busy.
        guard case .admitted = registry.admit(try self.channel(), client: "b", limits: counts) else {
            Issue.record("a new client was refused while connections sat idle")
            return
        }
        #expect(!channels[1].isActive)
        #expect(channels[0].isActive && channels[2].isActive)
        #expect(registry.count == 3)

        lifecycles[0].setWaitingForRequest(since: nil)
        let busy = registry.admit(try self.channel(), client: "c", limits: counts)
        guard case .refused(let reason) = busy else {
            Issue.record("admitted past the limit with no idle connection")
            return
        }
        #expect(reason.contains("--max-connections"))
    }

    @Test("one client's connections are capped, and its own idle ones make room first")
    func perClient() throws {
        let registry = ConnectionRegistry()
        let counts = ConnectionCounts(total: 100, perClient: 2)
        let first = try self.channel()
        let second = try self.channel()
        guard case .admitted(let one) = registry.admit(first, client: "x", limits: counts),
            case .admitted = registry.admit(second, client: "x", limits: counts)
        else {
            Issue.record("refused under the limit")
            return
        }
        guard case .refused(let reason) = registry.admit(try self.channel(), client: "x", limits: counts) else {
            Issue.record("a third connection of one client was admitted")
            return
        }
        #expect(reason.contains("--max-connections-per-client"))
        guard case .admitted = registry.admit(try self.channel(), client: "y", limits: counts) else {
            Issue.record("another client was refused")
            return
        }
        one.setWaitingForRequest(since: .now())
        guard case .admitted = registry.admit(try self.channel(), client: "x", limits: counts) else {
            Issue.record("refused although the client had an idle connection")
            return
        }
        #expect(!first.isActive)
        #expect(second.isActive)
    }
}
