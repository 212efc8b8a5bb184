import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

@testable import LarderProxy

/// A `ProxyServer` running in this process on a free port over a store in a temporary directory,
/// with a scripted upstream: requests go in as raw bytes over a socket, answers come back as the
/// exact bytes a client would read.
struct InProcessProxy: Sendable {
    let server: ProxyServer
    let store: Store
    let port: Int

    /// Runs `body` against a proxy (and every service it needs, ``ProxyServer/services``) that
    /// stops when `body` returns.
    static func with<T: Sendable>(
        upstream: ScriptedUpstream,
        store: Store? = nil,
        configure: (inout ProxyConfiguration) -> Void = { _ in },
        pages: (@Sendable (any ProxyIntrospection) throws -> any OwnPageResponder)? = nil,
        _ body: (InProcessProxy) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inprocess-\(UUID().uuidString)").path
        let ownStore = store == nil
        let store = try store ?? Store(directory: directory)
        defer {
            if ownStore {
                try? store.close()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        var configuration = ProxyConfiguration()
        configuration.port = 0
        configure(&configuration)
        let listening = AsyncStream<Int>.makeStream()
        let background = BackgroundWork()
        let server = ProxyServer(
            configuration: configuration,
            store: store,
            upstream: upstream,
            connector: try UpstreamConnector(trust: UpstreamTrust()),
            background: background,
            precacheJobs: { _, _ in NoPrecacheJobs() },
            pages: pages,
            logger: Logger(label: "test"),
            onListening: { address in
                listening.continuation.yield(address.port ?? 0)
                listening.continuation.finish()
            }
        )
        // The server's services, as `larder serve` runs them (after the store, which the test owns).
        let services = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: server.services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) },
                logger: Logger(label: "test")))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            defer { group.cancelAll() }
            var ports = listening.stream.makeAsyncIterator()
            guard let port = await ports.next() else { throw CancellationError() }
            return try await body(InProcessProxy(server: server, store: store, port: port))
        }
    }

    /// Sends `request` (a whole HTTP/1.1 message; `Connection: close` is added) and returns every
    /// byte of the answer up to the connection's end.
    func send(_ request: String) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: self.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var message = request
            if !message.lowercased().contains("\r\nconnection:") {
                message = message.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n")
            }
            try await outbound.write(ByteBuffer(string: message))
            var bytes: [UInt8] = []
            for try await chunk in inbound {
                bytes += chunk.readableBytesView
            }
            return bytes
        }
    }

    /// Sends a GET of `url` and hangs up once `bytes` bytes of the answer have come: a client that
    /// goes away mid-answer.
    func getAndHangUp(_ url: String, after bytes: Int) async throws {
        let host = (try? HTTPURL(parsing: url))?.host ?? "localhost"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: self.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET \(url) HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
            var received = 0
            for try await chunk in inbound {
                received += chunk.readableBytes
                if received >= bytes { break }
            }
        }
    }

    /// `count` GETs of `url` through the proxy at once; their answers in the order they came.
    func get(_ url: String, times count: Int) async throws -> [RawAnswer] {
        try await withThrowingTaskGroup(of: RawAnswer.self) { group in
            for _ in 0..<count {
                group.addTask { try await self.get(url) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// A GET of `url` through the proxy, with `headers`.
    func get(_ url: String, method: String = "GET", headers: [(String, String)] = []) async throws -> RawAnswer {
        let host = (try? HTTPURL(parsing: url))?.host ?? "localhost"
        var request = "\(method) \(url) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers {
            request += "\(name): \(value)\r\n"
        }
        return RawAnswer(bytes: try await self.send(request + "\r\n"))
    }
}

/// An answer as bytes, with its parts.
struct RawAnswer: Sendable {
    let bytes: [UInt8]

    /// The head, up to the blank line.
    var head: String {
        let text = String(decoding: self.bytes, as: UTF8.self)
        return text.components(separatedBy: "\r\n\r\n").first ?? text
    }

    /// The status code.
    var status: Int {
        Int(self.head.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The first value of header `name`.
    func header(_ name: String) -> String? {
        for line in self.head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingWhitespace()
            }
        }
        return nil
    }

    /// The body (after the head; chunked framing not undone).
    var body: String {
        let text = String(decoding: self.bytes, as: UTF8.self)
        guard let range = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[range.upperBound...])
    }
}

/// A precache job queue that takes no job: these tests start none (the pages that do are
/// LarderDevOffline's, tested there with a queue that records its jobs).
private struct NoPrecacheJobs: PrecacheJobQueue {
    func submit(
        lines: [String], extraURLs: [ExtraURLRecord], source: String, requestedBy origin: String?, reach: UpstreamReach?,
        allowed: (HTTPURL) -> Bool
    )
        -> PrecacheSubmission
    {
        .nothingToPrecache(problems: ["\(source): these tests precache nothing"])
    }

    func submitPageJob(lines: [String], origin: String, reach: UpstreamReach?, allowance: @escaping @Sendable () -> Int64)
        -> PrecacheSubmission
    {
        .nothingToPrecache(problems: ["request: these tests precache nothing"])
    }

    func status(_ id: String) -> PrecacheJobStatus<EncodedReport>? { nil }

    func run() async {}
}
