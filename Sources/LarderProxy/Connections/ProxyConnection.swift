import AsyncAlgorithms
import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore
import NIOHTTP1

/// One client connection: reads requests in order (so pipelining is safe), routes each, and
/// writes its response before reading the next.
struct ProxyConnection {
    let channel: NIOAsyncChannel<ProxyInbound, ProxyOutbound>
    /// Serves the forwarded HTTP requests (through its `serve` methods).
    let forward: ForwardProxy
    /// The proxy's configuration (with its answered-offline routes).
    let configuration: ProxyConfiguration
    let offline: OfflineSwitch
    /// Whether a WebSocket relay may try an origin (``UpstreamHealthRegistry/admit(origin:)``).
    let health: UpstreamHealthRegistry
    let offlineMissLog: OfflineMissLog
    let appOrigins: AppOriginRegistry
    let learnedQueries: LearnedQueries
    /// Token values a referer is shown without (``SubstitutedSecrets``).
    let secrets: SubstitutedSecrets
    let own: RequestRoute.OwnAuthorities
    let rules: RequestRoute.Rules
    let pages: OwnPages
    let lifecycle: ConnectionLifecycle
    let interception: Interception?
    /// Opens the upstream side of tunnels and WebSocket relays (their outcomes counted for back-off).
    let connector: HealthRecordingConnector
    let requestLog: RequestLog
    let logger: Logger

    func run() async {
        do {
            try await self.channel.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                try await self.serveRequests(&iterator, outbound: outbound, tunnel: nil)
            }
        } catch {
            self.logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// Where the client connects from, for personal answers (``AnswerOwner``). A connection
    /// already closed has no address any more: counted as another machine, which only refuses more.
    var client: AnswerOwner.Client {
        guard let address = self.channel.channel.remoteAddress else { return .remote(address: "") }
        return CIDR.isLoopback(address) ? .local : .remote(address: address.ipAddress ?? "\(address)")
    }

    /// What this client may make Larder reach: everything from the box's own loopback, not the
    /// box's own addresses from another machine unless the config lists them (``UpstreamReach``).
    var reach: UpstreamReach? {
        self.forward.reach(for: self.client)
    }

    /// Serves requests one after another until the connection should close.
    func serveRequests(
        _ iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>,
        tunnel: TunnelOrigin?
    ) async throws {
        while true {
            let part: ProxyInbound?
            do {
                self.lifecycle.setIdle(true)
                part = try await iterator.next()
                self.lifecycle.setIdle(false)
            } catch {
                try await self.refuseMalformed(error, outbound: outbound)
                return
            }
            guard case .http(.head(var head)) = part else { return }
            let writer = ResponseWriter(
                outbound: outbound, version: head.version.major == 1 ? head.version : .http1_1, accept: head.headers["accept"],
                bodyFiles: tunnel?.scheme == "https" ? .read : .sendfile(connectionClose: self.channel.channel.closeFuture))
            let started = ContinuousClock.now

            let route =
                (tunnel.map { RequestRoute.classifyInTunnel(head, scheme: $0.scheme, host: $0.host, port: $0.port, rules: self.rules) }
                ?? RequestRoute.classify(head, own: self.own, rules: self.rules)).limited(to: self.reach)
            if tunnel != nil, case .forward(let url) = route {
                // Logged and counted under the full URL, not the origin-form target.
                head.uri = url.absoluteString
            }
            if case .forward(let url) = route {
                // Learns the app's origins from every request, answered from the cache or not.
                _ = self.appOrigins.classify(head, url: url)
            }
            let keepGoing: Bool
            switch route {
            case .reject(let status, let reason):
                try await writer.page(.refusal(status, reason: reason), cacheStatus: nil, close: true, isHead: head.method == .HEAD)
                self.log(head, status: Int(status.code), cacheStatus: nil, since: started)
                return
            case .ownPage(let path, _):
                guard let body = try await Self.collectBody(&iterator, limit: PrecacheAPI.maximumBodySize) else {
                    let reason = "The request body is larger than \(PrecacheAPI.maximumBodySize) bytes."
                    try await writer.page(.refusal(.payloadTooLarge, reason: reason), cacheStatus: nil, close: true)
                    self.log(head, status: 413, cacheStatus: nil, since: started)
                    return
                }
                let status = try await self.pages.respond(path: path, request: head, body: body, client: self.client, writer: writer)
                self.log(head, status: status, cacheStatus: nil, since: started)
                keepGoing = head.isKeepAlive
            case .connect(let host, let port):
                guard try await Self.skipBody(&iterator) else { return }
                try await self.connect(host: host, port: port, head: head, iterator: &iterator, writer: writer, started: started)
                return
            case .forward(let url) where WebSocketHandshake.isUpgrade(head):
                // After the upgrade the connection is the stream's, whatever upstream answers.
                try await self.relayWebSocket(head, url: url, iterator: &iterator, outbound: outbound, writer: writer, started: started)
                return
            case .forward(let url):
                let outcome: ForwardProxy.Outcome
                do {
                    outcome = try await self.forward(head, url: url, iterator: &iterator, writer: writer)
                } catch let error as HTTPParserError where !writer.hasStarted {
                    // The body was malformed (an overflowing chunk size, say) before any answer began.
                    try await self.refuseMalformed(error, outbound: outbound)
                    self.log(head, status: 400, cacheStatus: nil, since: started)
                    return
                }
                self.log(head, status: outcome.status, cacheStatus: outcome.cacheStatus, since: started)
                keepGoing = outcome.reusable && head.isKeepAlive
            }
            if !keepGoing || self.lifecycle.isShuttingDown {
                return
            }
        }
    }

    /// Forwards one request, streaming its body to upstream when it has one. A request keyed by
    /// its body (docs/SERVING.md, "Requests with bodies"), or one a queue rule may cover (docs/SERVING.md,
    /// "Queued writes"), is read whole first, up to ``BodyKey/maximumBodySize``; a larger one is
    /// streamed as any other, unkeyed and unqueued.
    private func forward(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        writer: ResponseWriter
    ) async throws -> ForwardProxy.Outcome {
        let declaredLength = head.headers["content-length"].first.flatMap { Int64($0) }
        let hasBody = (declaredLength ?? 0) > 0 || head.headers.contains(name: "transfer-encoding")
        let method = head.method.wireName
        if !hasBody {
            guard try await Self.skipBody(&iterator) else {
                return ForwardProxy.Outcome(status: 400, cacheStatus: nil, reusable: false)
            }
            if let preflight = CORSPreflight(method: method, request: head.headers) {
                let keyed = self.configuration.preflightServing(preflight, url: url)
                return try await self.forward.serveCacheable(head, url: url, client: self.client, writer: writer, keyed: keyed)
            }
            if head.method == .GET, url.hasGraphQLQuery,
                let keyed = self.configuration.keyedServing(
                    method: method, url: url, body: nil, headers: head.headers, client: self.client)
            {
                return try await self.forward.serveCacheable(head, url: url, client: self.client, writer: writer, keyed: keyed)
            }
            if head.method == .GET || head.method == .HEAD {
                return try await self.forward.serveCacheable(head, url: url, client: self.client, writer: writer)
            }
            let key = CacheKey(url: url, filter: self.configuration.queryFilter)
            if let rule = self.configuration.writeQueue.rule(method: method, key: key, body: []) {
                return try await self.forward.serveQueueable(
                    head, url: url, client: self.client, body: ByteBuffer(), rule: rule, writer: writer)
            }
            return try await self.forward.serveUncacheable(head, url: url, client: self.client, body: nil, writer: writer)
        }

        var readAhead: [ByteBuffer] = []
        let isRead = head.method == .GET || head.method == .HEAD
        let key = CacheKey(url: url, filter: self.configuration.queryFilter)
        let writeQueue = self.configuration.writeQueue
        let mayQueue = !isRead && writeQueue.mayQueue(method: method, key: key)
        let contentType = head.headers["content-type"].first
        if mayQueue || (!isRead && self.configuration.mayKey(method: method, url: url, contentType: contentType)) {
            switch try await Self.readBody(&iterator, limit: BodyKey.maximumBodySize) {
            case .whole(let body):
                // A write a rule queues is never answered from the store, whatever keys it.
                if mayQueue, let rule = writeQueue.rule(method: method, key: key, body: Array(body.readableBytesView)) {
                    return try await self.forward.serveQueueable(
                        head, url: url, client: self.client, body: body, rule: rule, writer: writer)
                }
                let learned = self.configuration.declaredRequests.isEmpty ? [:] : await self.learnedQueries.current()
                let lookup = self.configuration.keyedLookup(
                    method: method, url: url, body: body, headers: head.headers, client: self.client, learned: learned)
                guard case .keyed(let keyed) = lookup else {
                    if case .withheld(let declared) = lookup {
                        // Its error answer says a declared answer exists and why it was withheld.
                        return try await self.forward.serveUncacheable(
                            head, url: url, client: self.client, body: .bytes(body), writer: writer, withheldDeclared: declared)
                    }
                    // A JSON body that is not a GraphQL query says why it is never answered from the store.
                    let detail = JSONMediaType.names(contentType) ? GraphQLRead(body: Array(body.readableBytesView)).notKeyedDetail : nil
                    return try await self.forward.serveUncacheable(
                        head, url: url, client: self.client, body: .bytes(body), writer: writer, detail: detail)
                }
                let outcome = try await self.forward.serveCacheable(head, url: url, client: self.client, writer: writer, keyed: keyed)
                if let learning = keyed.learning, let status = outcome.cacheStatus?.forwardStatus, (200..<300).contains(status) {
                    // The origin answered the app's own version of a declared request: follow it.
                    let source = head.headers.first(name: "referer").map { self.secrets.redacting($0) } ?? "the app's request"
                    await self.learnedQueries.learn(
                        learning.template, name: learning.name, from: source, at: self.configuration.now())
                }
                return outcome
            case .larger(let chunks):
                readAhead = chunks
            case .cut:
                return ForwardProxy.Outcome(status: 400, cacheStatus: nil, reusable: false)
            }
        }

        // The body is pumped from this task (which owns the connection's iterator) into a
        // channel that the upstream transfer reads at its own pace: backpressure end to end.
        let chunks = AsyncThrowingChannel<ByteBuffer, any Error>()
        let forward = self.forward
        let client = self.client
        return try await withThrowingTaskGroup(of: ForwardProxy.Outcome.self) { group in
            group.addTask {
                defer { chunks.finish() }
                return try await forward.serveUncacheable(
                    head, url: url, client: client, body: .stream(chunks, length: declaredLength), writer: writer)
            }
            for chunk in readAhead {
                await chunks.send(chunk)
            }
            var complete = false
            while !complete {
                let next: ProxyInbound?
                do {
                    next = try await iterator.next()
                } catch {
                    // A malformed body: the transfer upstream is abandoned before it can answer,
                    // so the client can be told why.
                    group.cancelAll()
                    chunks.fail(error)
                    _ = try? await group.next()
                    throw error
                }
                guard let part = next else {
                    chunks.fail(ClientClosedError())
                    break
                }
                switch part {
                case .http(.body(let buffer)):
                    await chunks.send(buffer)
                case .http(.end):
                    chunks.finish()
                    complete = true
                default:
                    chunks.fail(ClientClosedError())
                    complete = true
                }
            }
            guard var outcome = try await group.next() else {
                return ForwardProxy.Outcome(status: 500, cacheStatus: nil, reusable: false)
            }
            outcome.reusable = outcome.reusable && complete
            return outcome
        }
    }

    /// How reading a body up to a limit ended.
    private enum LimitedBody {
        /// The whole body, within the limit.
        case whole(ByteBuffer)
        /// The chunks read when the limit was passed; the rest is still to be read.
        case larger([ByteBuffer])
        /// The client went away, or sent something else, before the body's end.
        case cut
    }

    /// Reads a request body whole while it is at most `limit` bytes, else stops at the chunk that
    /// passes the limit.
    private static func readBody(
        _ iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        limit: Int
    ) async throws -> LimitedBody {
        var chunks: [ByteBuffer] = []
        var size = 0
        while let part = try await iterator.next() {
            switch part {
            case .http(.body(let chunk)):
                chunks.append(chunk)
                size += chunk.readableBytes
                if size > limit { return .larger(chunks) }
            case .http(.end):
                var body = ByteBuffer()
                body.reserveCapacity(size)
                for var chunk in chunks { body.writeBuffer(&chunk) }
                return .whole(body)
            default:
                return .cut
            }
        }
        return .cut
    }

    /// Reads a small request body whole; nil when it exceeds `limit` or the request ends badly.
    private static func collectBody(
        _ iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator,
        limit: Int
    ) async throws -> ByteBuffer? {
        var body = ByteBuffer()
        while let part = try await iterator.next() {
            switch part {
            case .http(.body(var chunk)):
                guard body.readableBytes + chunk.readableBytes <= limit else { return nil }
                body.writeBuffer(&chunk)
            case .http(.end):
                return body
            default:
                return nil
            }
        }
        return nil
    }

    /// Reads up to the end of a request without a body. False when the client sent something else.
    static func skipBody(_ iterator: inout NIOAsyncChannelInboundStream<ProxyInbound>.AsyncIterator) async throws -> Bool {
        while let part = try await iterator.next() {
            switch part {
            case .http(.end): return true
            case .http(.body): continue
            default: return false
            }
        }
        return false
    }

    /// Answers a request the HTTP decoder rejected, then the connection closes.
    private func refuseMalformed(_ error: any Error, outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>) async throws {
        let status: HTTPResponseStatus
        let reason: String
        switch error as? HTTPParserError {
        case .headerOverflow?:
            status = .requestHeaderFieldsTooLarge
            reason = "The request headers are too large."
        case .some(let parserError):
            status = .badRequest
            reason = "Malformed HTTP request (\(parserError))."
        case nil:
            self.logger.debug("connection read failed", metadata: ["error": "\(error)"])
            return
        }
        self.logger.notice("malformed request refused", metadata: ["status": "\(status.code)", "error": "\(error)"])
        let writer = ResponseWriter(outbound: outbound, version: .http1_1)
        try await writer.page(.refusal(status, reason: reason), cacheStatus: nil, close: true)
    }

    func log(_ head: HTTPRequestHead, status: Int, cacheStatus: CacheStatus?, since started: ContinuousClock.Instant) {
        self.requestLog.record(
            head, status: status, cacheStatus: cacheStatus, since: started)
    }
}

/// The client went away before its request body was complete.
struct ClientClosedError: Error, CustomStringConvertible {
    var description: String { "the client closed the connection before sending the whole request body" }
}
