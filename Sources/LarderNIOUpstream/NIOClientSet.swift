import AsyncHTTPClient
import LarderHTTP
import LarderUpstream
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The AsyncHTTPClient clients of one ``NIOUpstream`` and its transfers in flight.
///
/// AsyncHTTPClient takes its connect timeout and its parent proxy per client, where curl takes them
/// per request, so there is one client for each connect timeout and parent a request asks for, made
/// on first use. Callers use a few connect timeouts each (from their configuration), so there are
/// few clients, each with its own connection pool; ``NIOConnectionSlots`` bounds transfers per host
/// across them.
final class NIOClientSet: Sendable {
    /// What a client is made for.
    struct Key: Hashable, Sendable {
        var connectTimeout: Duration
        /// The parent that `https://` requests are tunnelled through (`CONNECT`).
        var parent: ProxyEndpoint?
        /// Whether the client's connections go to a parent that forwards plain `http://`
        /// requests, written in absolute form (``AbsoluteFormRequestTarget``).
        var forwardsAbsoluteForm = false
    }

    /// What every client shares.
    struct Base: Sendable {
        var tls: TLSConfiguration
        var maxConnectionsPerHost: Int
        var eventLoopGroup: any EventLoopGroup
        var logger: Logger
    }

    private struct State {
        var isShutDown = false
        var clients: [Key: HTTPClient] = [:]
        var transfers: [ObjectIdentifier: NIOTransfer] = [:]
    }

    /// AsyncHTTPClient's per-host limit when the configuration sets none (0): more connections
    /// to one host than any caller opens.
    private static let unlimitedConnectionsPerHost = 1 << 16

    private let base: Base
    private let state = Mutex(State())
    /// What admits transfers within the connection limits.
    let slots: NIOConnectionSlots

    init(base: Base, maxTotalConnections: Int) {
        self.base = base
        self.slots = NIOConnectionSlots(perHost: base.maxConnectionsPerHost, total: maxTotalConnections)
    }

    /// Registers `transfer` and returns the client to run it on, or nil when shut down.
    func begin(_ transfer: NIOTransfer, key: Key) -> HTTPClient? {
        self.state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.transfers[ObjectIdentifier(transfer)] = transfer
            if let client = state.clients[key] { return client }
            let client = self.makeClient(key)
            state.clients[key] = client
            return client
        }
    }

    /// Forgets `transfer`, which has ended.
    func end(_ transfer: NIOTransfer) {
        _ = self.state.withLock { $0.transfers.removeValue(forKey: ObjectIdentifier(transfer)) }
    }

    /// Refuses new transfers and returns the transfers in flight and the clients, the first time.
    func shutDown() -> (transfers: [NIOTransfer], clients: [HTTPClient])? {
        self.state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            defer {
                state.transfers = [:]
                state.clients = [:]
            }
            return (Array(state.transfers.values), Array(state.clients.values))
        }
    }

    private func makeClient(_ key: Key) -> HTTPClient {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit =
            self.base.maxConnectionsPerHost == 0 ? Self.unlimitedConnectionsPerHost : self.base.maxConnectionsPerHost
        // A refused or unresolvable host fails its requests at once, as curl's do, rather than
        // being retried with back-off until the connect timeout: the kinds decide fallbacks.
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: self.base.tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(key.connectTimeout), read: nil),
            connectionPool: pool,
            proxy: key.parent.map { parent in
                .server(
                    host: parent.host, port: parent.port,
                    authorization: parent.username.map { .basic(username: $0, password: parent.password ?? "") })
            },
            decompression: .disabled
        )
        // One request per connection at a time, so that the per-host limit counts requests as curl's does.
        configuration.httpVersion = .http1Only
        if key.forwardsAbsoluteForm {
            configuration.http1_1ConnectionDebugInitializer = { AbsoluteFormRequestTarget.install(on: $0) }
        }
        return HTTPClient(
            eventLoopGroup: self.base.eventLoopGroup, configuration: configuration, backgroundActivityLogger: self.base.logger)
    }
}
