import LarderHTTP
import NIOCore
import NIOHTTP1
import Synchronization

/// Writes HTTP responses to one client connection, with backpressure. A class: every holder of the
/// writer must see whether a head went out.
final class ResponseWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>
    /// The client's HTTP version, echoed in response heads.
    let version: HTTPVersion
    /// How stored bodies too large for memory go out.
    private let bodyFiles: BodyFiles
    /// The request's `Accept` field values: how Larder's own error pages are written for it
    /// (``ErrorFormat``), read only when one is.
    private let accept: [String]
    private let started = Mutex(false)

    /// How a stored body too large for memory goes out.
    enum BodyFiles: Sendable {
        /// From its file by `sendfile`: such a write ends when the bytes are out, or when the
        /// connection closes first (`connectionClose`, the connection's close future).
        case sendfile(connectionClose: EventLoopFuture<Void>)
        /// Read through Larder in chunks (through TLS, which must see the bytes to encrypt them).
        case read
    }

    /// A writer for one request; `accept` are its `Accept` field values.
    init(
        outbound: NIOAsyncChannelOutboundWriter<ProxyOutbound>, version: HTTPVersion, accept: [String] = [],
        bodyFiles: BodyFiles = .read
    ) {
        self.outbound = outbound
        self.version = version
        self.accept = accept
        self.bodyFiles = bodyFiles
    }

    /// Whether a stored body too large for memory goes from its file by `sendfile` (``BodyFiles``).
    var sendsBodyFiles: Bool {
        if case .sendfile = self.bodyFiles { true } else { false }
    }

    /// Whether a response head has been written (a request that turns out malformed can then no
    /// longer be answered 400).
    var hasStarted: Bool {
        self.started.withLock { $0 }
    }

    func head(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) async throws {
        self.started.withLock { $0 = true }
        try await self.outbound.write(.http(.head(HTTPResponseHead(version: self.version, status: status, headers: headers))))
    }

    /// An interim (1xx) head, before the final one: it starts no response.
    func interim(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) async throws {
        try await self.outbound.write(.http(.head(HTTPResponseHead(version: self.version, status: status, headers: headers))))
    }

    func body(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return }
        try await self.outbound.write(.http(.body(.byteBuffer(buffer))))
    }

    func end() async throws {
        try await self.outbound.write(.http(.end(nil)))
    }

    /// A whole response at once: head, body and end in one flush (one system call for a small one).
    func whole(_ status: HTTPResponseStatus, _ headers: HTTPHeaders, body: ByteBuffer?) async throws {
        var parts: [ProxyOutbound] = [.http(.head(HTTPResponseHead(version: self.version, status: status, headers: headers)))]
        if let body, body.readableBytes > 0 {
            parts.append(.http(.body(.byteBuffer(body))))
        }
        parts.append(.http(.end(nil)))
        self.started.withLock { $0 = true }
        try await self.outbound.write(contentsOf: parts)
    }

    /// A whole response whose body goes from a stored body's file by `sendfile` (only when
    /// ``sendsBodyFiles``). Returns once the body is out, as the writes of a body read in chunks do
    /// with backpressure: only then does the response end (and may the connection close, which
    /// would drop what NIO still holds).
    func whole(_ status: HTTPResponseStatus, _ headers: HTTPHeaders, file: StoredBodyFile) async throws {
        guard case .sendfile(let connectionClose) = self.bodyFiles else { preconditionFailure("a stored body file written through TLS") }
        let completion = StoredBodyFile.Completion()
        // A write the connection drops unsent (it closed meanwhile) is never reported by NIO.
        connectionClose.whenComplete { [weak completion] _ in completion?.settle(.failure(ChannelError.ioOnClosedChannel)) }
        self.started.withLock { $0 = true }
        try await self.outbound.write(contentsOf: [
            .http(.head(HTTPResponseHead(version: self.version, status: status, headers: headers))), .file(file, completion: completion),
        ])
        try await completion.wait()
        try await self.outbound.write(.http(.end(nil)))
    }

    /// A complete response with a small in-memory body.
    func complete(
        _ status: HTTPResponseStatus,
        headers: HTTPHeaders,
        body: String,
        isHead: Bool = false
    ) async throws {
        var headers = headers
        headers.replaceOrAdd(name: "content-length", value: String(body.utf8.count))
        try await self.whole(status, headers, body: isHead ? nil : ByteBuffer(string: body))
    }

    /// A Larder status page, as HTML or as JSON (``ErrorFormat``), with `extraHeaders` (the
    /// CORS grant of a page made in an origin's place).
    func page(
        _ page: StatusPage,
        cacheStatus: CacheStatus?,
        close: Bool,
        isHead: Bool = false,
        extraHeaders: [HeaderField] = []
    ) async throws {
        var headers = HTTPHeaders(extraHeaders)
        let body: String
        switch ErrorFormat(accept: self.accept) {
        case .html:
            headers.add(name: "content-type", value: "text/html; charset=utf-8")
            body = page.html
        case .json:
            headers.add(name: "content-type", value: "application/json")
            body = page.json(cacheStatus: cacheStatus)
        }
        headers.add(name: "cache-control", value: "no-store")
        // Larder's own answer, not a forwarded one: no `Via`.
        ProxyAnswerFields.add(to: &headers, via: false, cacheStatus: cacheStatus, close: close)
        try await self.complete(page.status, headers: headers, body: body, isHead: isHead)
    }
}
