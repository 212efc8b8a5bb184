import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// An in-process HTTP/1.1 origin on 127.0.0.1 with scripted routes, static directories and fault
/// injection, for tests and the demo.
///
/// Routes are matched on the request target: an exact match (path and query) first, then the path
/// alone; then the served directories (longest prefix first); anything else is a 404. Every request
/// is recorded before it is answered.
public final class TestOrigin: Sendable {
    /// The mutable parts, shared by the connections and the test.
    private struct State {
        var port: Int
        var routes: [String: TestResponse] = [:]
        var directories: [StaticDirectory] = []
        var records: [RecordedRequest] = []
        var serverChannel: (any Channel)?
        /// False from `stop()` until the next `restart()`.
        var isListening = false
        var connections: [ObjectIdentifier: any Channel] = [:]
        /// How long each new connection's first request waits before it arrives.
        var newConnectionDelay: Duration?
    }

    private let state: Mutex<State>
    private let group: any EventLoopGroup
    private let tlsContext: NIOSSLContext?

    /// The PEM file of the test CA that signed the TLS origin's certificate, or `nil` for plain HTTP.
    public let caCertificatePath: String?

    private init(port: Int, tlsContext: NIOSSLContext?, caCertificatePath: String?) {
        self.state = Mutex(State(port: port))
        self.group = MultiThreadedEventLoopGroup.singleton
        self.tlsContext = tlsContext
        self.caCertificatePath = caCertificatePath
    }

    /// Starts an origin listening on 127.0.0.1.
    ///
    /// - Parameters:
    ///   - tls: Serve HTTPS with a leaf for `localhost` and `127.0.0.1` signed by a fresh test CA,
    ///     whose certificate is written to ``caCertificatePath``.
    ///   - port: The port to listen on; 0 picks a free one.
    public static func start(tls: Bool = false, port: Int = 0) async throws -> TestOrigin {
        let origin: TestOrigin
        if tls {
            let server = try LocalhostTLSServer()
            origin = TestOrigin(port: port, tlsContext: server.context, caCertificatePath: server.caCertificatePath)
        } else {
            origin = TestOrigin(port: port, tlsContext: nil, caCertificatePath: nil)
        }
        try await origin.listen()
        return origin
    }

    /// The port the origin listens on (kept across ``stop()`` and ``restart()``).
    public var port: Int {
        self.state.withLock { $0.port }
    }

    /// `http://127.0.0.1:PORT`, or `https://localhost:PORT` for a TLS origin (no trailing slash).
    public var baseURL: String {
        self.tlsContext == nil ? "http://127.0.0.1:\(self.port)" : "https://localhost:\(self.port)"
    }

    /// ``baseURL`` followed by `path`, e.g. `url("/a.js")`.
    public func url(_ path: String) -> String {
        self.baseURL + path
    }

    /// Answers requests for `path` with `response`. A `path` with a query matches only that exact
    /// request target; one without matches any query unless an exact route exists.
    public func setRoute(_ path: String, _ response: TestResponse) {
        self.state.withLock { $0.routes[path] = response }
    }

    /// Removes the route for `path`, so the request falls through to directories or a 404.
    public func removeRoute(_ path: String) {
        self.state.withLock { $0.routes[path] = nil }
    }

    /// Serves the files under `directory` at the URL path `prefix`, with `Cache-Control: cacheControl`
    /// when given. See ``serveDirectory(_:at:cacheControlForPath:)``.
    public func serveDirectory(_ directory: String, at prefix: String = "/", cacheControl: String? = nil) {
        self.serveDirectory(directory, at: prefix, cacheControlForPath: { _ in cacheControl })
    }

    /// Serves the files under `directory` at the URL path `prefix`.
    ///
    /// Files get `Content-Type` by extension, `Content-Length`, a strong `ETag` (size and
    /// modification time) and `Last-Modified`; `If-None-Match` and `If-Modified-Since` give a 304;
    /// `HEAD` is answered. A path ending in `/` serves its `index.html`; a folder without the `/` is
    /// redirected (301) to it; missing files are a 404 and paths with `..` segments a 403.
    ///
    /// - Parameter cacheControlForPath: Given the file's path relative to `directory` (e.g.
    ///   `games/flipart/index.html`), the `Cache-Control` value to send, or `nil` for none.
    public func serveDirectory(
        _ directory: String,
        at prefix: String = "/",
        cacheControlForPath: @escaping @Sendable (String) -> String?
    ) {
        let mount = StaticDirectory(root: directory, prefix: prefix, cacheControlForPath: cacheControlForPath)
        self.state.withLock { state in
            state.directories.append(mount)
            state.directories.sort { $0.prefix.utf8.count > $1.prefix.utf8.count }
        }
    }

    /// The requests received, oldest first: all of them for `nil`, else those whose request target is
    /// `path` or, for a `path` without a query, whose path is `path` (any query). Absolute-form
    /// targets (`http://host/a`) are matched by their path and query.
    public func requests(_ path: String? = nil) -> [RecordedRequest] {
        let records = self.state.withLock { $0.records }
        guard let path else {
            return records
        }
        return records.filter { Self.target(of: $0, matches: path) }
    }

    /// How many requests matched `path`, as ``requests(_:)`` matches them.
    public func requestCount(_ path: String) -> Int {
        self.state.withLock { state in
            state.records.reduce(0) { count, record in
                Self.target(of: record, matches: path) ? count + 1 : count
            }
        }
    }

    /// Makes each new connection's first request arrive `delay` late (nil: at once), as a TLS
    /// handshake over a real network delays it, while a request on a connection already open
    /// arrives at once.
    public func setNewConnectionDelay(_ delay: Duration?) {
        self.state.withLock { $0.newConnectionDelay = delay }
    }

    /// How long a new connection's first request waits before it arrives.
    var newConnectionDelay: Duration? {
        self.state.withLock { $0.newConnectionDelay }
    }

    /// Forgets the recorded requests (routes stay).
    public func resetRecords() {
        self.state.withLock { $0.records.removeAll() }
    }

    /// Stops listening and closes every open connection: connecting afterwards is refused.
    public func stop() async throws {
        let (server, connections) = self.state.withLock { state in
            let taken = (state.serverChannel, Array(state.connections.values))
            state.serverChannel = nil
            state.isListening = false
            return taken
        }
        try await server?.close()
        for connection in connections {
            // A connection may be closing by itself at the same time; it is closed either way.
            try? await connection.close()
        }
    }

    /// Listens again on the same port, with the same routes and directories.
    public func restart() async throws {
        try await self.listen()
    }

    // MARK: - Internals

    private static func target(of request: RecordedRequest, matches path: String) -> Bool {
        request.target == path || (!path.contains("?") && request.path == path)
    }

    /// Where an origin asked for any free port listens: below Linux's ephemeral range (32768-60999
    /// by default), which the kernel hands out for outgoing connections and for port 0. While an
    /// origin is stopped (a test of offline behaviour), a port of that range can be given to some
    /// other connection, and the origin's ``restart()`` would find it taken.
    private static let freePortRange = 20_000..<32_768
    /// Ports this process's origins have had, never given to another of them (an origin keeps its
    /// port across ``stop()`` and ``restart()``).
    private static let portsGiven = Mutex(Set<Int>())

    private func listen() async throws {
        let port = self.state.withLock { state in
            state.isListening = true
            return state.port
        }
        guard port == 0 else {
            try await self.bind(port: port)
            return
        }
        // Another program may hold a port of the range: a few tries, each on a port not tried yet.
        for attempt in 1... {
            let candidate = Self.portsGiven.withLock { given in
                var candidate = Int.random(in: Self.freePortRange)
                while given.contains(candidate) { candidate = Int.random(in: Self.freePortRange) }
                given.insert(candidate)
                return candidate
            }
            do {
                try await self.bind(port: candidate)
                return
            } catch let error as IOError where error.errnoCode == EADDRINUSE && attempt < 50 {
                continue
            }
        }
    }

    private func bind(port: Int) async throws {
        let channel = try await ServerBootstrap(group: self.group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try self.configureConnection(channel)
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        self.state.withLock { state in
            state.serverChannel = channel
            state.port = channel.localAddress?.port ?? port
        }
    }

    /// Sets up an accepted connection's pipeline and starts answering its requests.
    private func configureConnection(_ channel: any Channel) throws {
        let operations = channel.pipeline.syncOperations
        if let tlsContext = self.tlsContext {
            try operations.addHandler(NIOSSLServerHandler(context: tlsContext))
        }
        var encoderConfiguration = HTTPResponseEncoder.Configuration()
        encoderConfiguration.automaticallySetFramingHeaders = false
        // No outbound validation: a test may send a malformed header value (a bare CR) on purpose.
        try operations.configureHTTPServerPipeline(withOutboundHeaderValidation: false, withEncoderConfiguration: encoderConfiguration)
        let asyncChannel = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
            wrappingChannelSynchronously: channel
        )
        let id = ObjectIdentifier(channel)
        let accepted = self.state.withLock { state in
            // A connection accepted just as `stop()` ran must not outlive it.
            guard state.isListening else {
                return false
            }
            state.connections[id] = channel
            return true
        }
        guard accepted else {
            throw TestOriginStoppedError()
        }
        channel.closeFuture.whenComplete { _ in
            _ = self.state.withLock { $0.connections.removeValue(forKey: id) }
        }
        // NIO's child channel initializer is synchronous; the task ends when its connection closes.
        Task {
            await TestOriginConnection(origin: self, channel: asyncChannel).run()
        }
    }

    /// Records `request` and decides how to answer it.
    func respond(to request: RecordedRequest) -> TestResponse {
        let (route, directories) = self.state.withLock { state in
            state.records.append(request)
            return (state.routes[request.target] ?? state.routes[request.path], state.directories)
        }
        if let route {
            return Self.resolve(route, for: request)
        }
        for directory in directories {
            if let answer = directory.answer(request) {
                return answer
            }
        }
        return .text("not found: \(request.path)\n", status: 404)
    }

    /// Applies `.handler` faults: their result replaces the response, keeping the other faults first.
    private static func resolve(_ response: TestResponse, for request: RecordedRequest) -> TestResponse {
        var resolved = response
        var faults: [TestFault] = []
        for fault in response.faults {
            if case .handler(let handler) = fault {
                let computed = Self.resolve(handler(request), for: request)
                resolved.status = computed.status
                resolved.headers = computed.headers
                resolved.body = computed.body
                faults += computed.faults
            } else {
                faults.append(fault)
            }
        }
        resolved.faults = faults
        return resolved
    }
}

/// Thrown to refuse a connection accepted while the origin was stopping.
struct TestOriginStoppedError: Error {}
