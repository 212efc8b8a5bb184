import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the requests of one accepted connection and answers them in order, applying the faults.
struct TestOriginConnection {
    /// How many body writes may wait for the socket at once: enough to keep it busy, few enough
    /// that the origin's memory stays flat for any body size.
    private static let maxWritesInFlight = 4
    private static let defaultPieceSize = 64 * 1024

    let origin: TestOrigin
    let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    func run() async {
        do {
            try await self.channel.executeThenClose { inbound, _ in
                var head: HTTPRequestHead?
                var body: [UInt8] = []
                var first = true
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                        body = []
                        if requestHead.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                            let interim = HTTPResponseHead(version: requestHead.version, status: .continue)
                            try await self.channel.channel.writeAndFlush(HTTPServerResponsePart.head(interim)).get()
                        }
                    case .body(let buffer):
                        body += buffer.readableBytesView
                    case .end:
                        guard let requestHead = head else {
                            continue
                        }
                        if first, let delay = self.origin.newConnectionDelay {
                            try await Task.sleep(for: delay)
                        }
                        first = false
                        let request = RecordedRequest(
                            method: requestHead.method.rawValue,
                            uri: requestHead.uri,
                            headers: requestHead.headers.map { (name: $0.name, value: $0.value) },
                            body: body
                        )
                        let response = self.origin.respond(to: request)
                        guard try await self.send(response, answering: requestHead) else {
                            return
                        }
                    }
                }
            }
        } catch {
            // The peer went away or the origin stopped: there is no one left to tell.
        }
    }

    /// Sends `response` with its faults; returns whether the connection stays open.
    private func send(_ response: TestResponse, answering request: HTTPRequestHead) async throws -> Bool {
        var headDelay: Duration?
        var pieceDelay: Duration?
        var pieceSize = Self.defaultPieceSize
        var cut: (bytes: Int64, reset: Bool)?
        var interim: [(status: Int, headers: [(name: String, value: String)])] = []
        for fault in response.faults {
            switch fault {
            case .delayHead(let delay): headDelay = delay
            case .interim(let heads): interim = heads
            case .delayChunks(let delay): pieceDelay = delay
            case .chunkSize(let size): pieceSize = max(1, size)
            case .resetAfter(let bytes): cut = (bytes, true)
            case .closeAfter(let bytes): cut = (bytes, false)
            case .closeWithoutResponse: return false
            case .handler: break  // Resolved by the origin before the response gets here.
            }
        }
        if let headDelay {
            try await Task.sleep(for: headDelay)
        }

        // The encoder leaves framing to us (see `TestOrigin.configureConnection`), so the headers a
        // test sets go out exactly as given, even contradictory ones.
        let status = HTTPResponseStatus(statusCode: response.status)
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        let hasFraming = headers.contains(name: "content-length") || headers.contains(name: "transfer-encoding")
        let canChunk = request.version.major == 1 && request.version.minor >= 1
        // An HTTP/1.0 client cannot take chunks: an unframed body then ends when the connection closes.
        var endsWithClose = false
        if status.mayHaveResponseBody && !hasFraming {
            if let length = response.body.contentLength {
                headers.add(name: "Content-Length", value: String(length))
            } else if canChunk {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            } else {
                endsWithClose = true
            }
        }
        let keepAlive =
            request.isKeepAlive && !endsWithClose
            && !headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
        if !keepAlive && !headers.contains(name: "connection") {
            headers.add(name: "Connection", value: "close")
        }
        let channel = self.channel.channel
        for (interimStatus, interimHeaders) in interim {
            let interimHead = HTTPResponseHead(
                version: request.version, status: HTTPResponseStatus(statusCode: interimStatus),
                headers: HTTPHeaders(interimHeaders.map { ($0.name, $0.value) }))
            try await channel.writeAndFlush(HTTPServerResponsePart.head(interimHead)).get()
        }
        let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        try await channel.writeAndFlush(HTTPServerResponsePart.head(head)).get()

        let hasBody = request.method != .HEAD && status.mayHaveResponseBody
        var writes = WriteWindow(limit: Self.maxWritesInFlight)
        var sent: Int64 = 0
        var cutReached = cut.map { $0.bytes <= 0 } ?? false
        if hasBody && !cutReached {
            try await Self.forEachPiece(of: response.body, pieceSize: pieceSize, allocator: channel.allocator) {
                piece in
                var piece = piece
                if sent > 0, let pieceDelay {
                    try await Task.sleep(for: pieceDelay)
                }
                if let cut, sent + Int64(piece.readableBytes) >= cut.bytes {
                    piece = piece.getSlice(at: piece.readerIndex, length: Int(cut.bytes - sent)) ?? piece
                    cutReached = true
                }
                if piece.readableBytes > 0 {
                    sent += Int64(piece.readableBytes)
                    try await writes.add(channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(piece))))
                }
                return !cutReached
            }
        }
        try await writes.drain()

        if let cut, hasBody {
            // The body stops short (or at most at its end) without its end marker.
            if cut.reset {
                try await Self.reset(channel)
            } else {
                try await channel.close()
            }
            return false
        }
        try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
        return keepAlive
    }

    /// Closes `channel` with a TCP reset: `SO_LINGER` 0, and no TLS `close_notify` first (closing
    /// below the TLS handler), so the peer cannot take it for a clean end.
    private static func reset(_ channel: any Channel) async throws {
        try await (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        try await channel.eventLoop.flatSubmit {
            let pipeline = channel.pipeline.syncOperations
            if let tlsContext = try? pipeline.context(handlerType: NIOSSLServerHandler.self) {
                return tlsContext.close()
            }
            return channel.close()
        }.get()
    }

    /// Calls `body` with the body's pieces in order until it returns `false`.
    private static func forEachPiece(
        of body: TestBody,
        pieceSize: Int,
        allocator: ByteBufferAllocator,
        _ consume: (ByteBuffer) async throws -> Bool
    ) async throws {
        switch body {
        case .bytes(let bytes):
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + pieceSize, bytes.count)
                guard try await consume(allocator.buffer(bytes: bytes[offset..<end])) else {
                    return
                }
                offset = end
            }
        case .chunked(let chunks):
            for chunk in chunks where !chunk.isEmpty {
                guard try await consume(allocator.buffer(bytes: chunk)) else {
                    return
                }
            }
        case .generated(let length):
            var offset: Int64 = 0
            while offset < length {
                let end = min(offset + Int64(pieceSize), length)
                var buffer = allocator.buffer(capacity: Int(end - offset))
                GeneratedBody.forEachPiece(of: offset..<end) { buffer.writeBytes($0) }
                guard try await consume(buffer) else {
                    return
                }
                offset = end
            }
        case .file(let path, let length):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw TestOriginError.unreadableFile(path)
            }
            defer { try? handle.close() }
            var remaining = length
            while remaining > 0 {
                let data = try handle.read(upToCount: Int(min(Int64(pieceSize), remaining))) ?? Data()
                guard !data.isEmpty else {
                    throw TestOriginError.unreadableFile(path)
                }
                remaining -= Int64(data.count)
                guard try await consume(allocator.buffer(bytes: data)) else {
                    return
                }
            }
        }
    }
}

/// The futures of body writes not yet on the socket, at most `limit` of them.
private struct WriteWindow {
    let limit: Int
    private var pending: [EventLoopFuture<Void>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a write, first waiting for the oldest while the window is full.
    mutating func add(_ write: EventLoopFuture<Void>) async throws {
        self.pending.append(write)
        while self.pending.count > self.limit {
            try await self.pending.removeFirst().get()
        }
    }

    /// Waits for every pending write.
    mutating func drain() async throws {
        while !self.pending.isEmpty {
            try await self.pending.removeFirst().get()
        }
    }
}

/// Why ``TestOrigin`` could not answer.
enum TestOriginError: Error, CustomStringConvertible {
    case unreadableFile(String)

    var description: String {
        switch self {
        case .unreadableFile(let path): "cannot read \(path) (missing, or shorter than when it was listed)"
        }
    }
}
