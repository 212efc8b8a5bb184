import Foundation
import LarderHTTP
import LarderUpstream
import NIOCore
import Synchronization

@testable import LarderUpstream

/// An `Upstream` that answers each URL from a script and records every request: how the proxy is
/// tested in process, without an origin or curl.
final class ScriptedUpstream: Upstream {
    /// One scripted answer.
    struct Answer: Sendable {
        var status = 200
        var headers: [(String, String)] = [("Cache-Control", "max-age=60")]
        var body = ""
        /// How long the head takes.
        var delay: Duration = .zero
        /// When set, the body comes in this many pieces, each this long after the one before (a
        /// slow origin, or a large body on a slow network).
        var slowBody: (pieces: Int, interval: Duration)?
        /// Holds the head back until the test opens it: a hung origin, with no clock involved.
        var gate: Gate?
        /// Fail instead of answering.
        var failure: UpstreamError.Kind?
    }

    /// Holds answers back until ``open()``; how many have got through it.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>], passed: Int)>((false, [], 0))

        /// The answers that have got through.
        var passed: Int {
            self.state.withLock { $0.passed }
        }

        /// Lets every waiting answer through, and every later one.
        func open() {
            let waiting = self.state.withLock { state in
                state.isOpen = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let isOpen = self.state.withLock { state in
                    if !state.isOpen { state.waiting.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
            self.state.withLock { $0.passed += 1 }
        }
    }

    private struct State {
        var answers: [String: Answer] = [:]
        var requests: [UpstreamRequest] = []
        /// The body each request sent, read to its end (nil: none).
        var bodies: [[UInt8]?] = []
    }

    private let state = Mutex(State())

    /// Answers `url` with `answer` from now on.
    func script(_ url: String, _ answer: Answer) {
        self.state.withLock { $0.answers[url] = answer }
    }

    /// Every request so far, in order.
    var requests: [UpstreamRequest] {
        self.state.withLock { $0.requests }
    }

    /// The bodies of the requests so far, in order (nil: the request had none).
    var bodies: [[UInt8]?] {
        self.state.withLock { $0.bodies }
    }

    /// The requests for `url` so far.
    func requests(for url: String) -> [UpstreamRequest] {
        self.requests.filter { $0.url == url }
    }

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        // A body is read whole first, as an origin reads a request before answering it.
        let sent = try await Self.read(request.body)
        let answer = self.state.withLock { state -> Answer? in
            state.requests.append(request)
            state.bodies.append(sent)
            return state.answers[request.url]
        }
        guard let answer else {
            throw UpstreamError(kind: .connectionRefused, message: "nothing scripted for \(request.url)", url: request.url)
        }
        if answer.delay > .zero {
            try await Task.sleep(for: answer.delay)
        }
        await answer.gate?.wait()
        if let failure = answer.failure {
            throw UpstreamError(kind: failure, message: "scripted \(failure)", url: request.url)
        }
        let body = ByteBuffer(string: answer.body)
        var headers = answer.headers.map { HeaderField(name: $0.0, value: $0.1) }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        let head = UpstreamResponseHead(status: answer.status, reason: "", headers: headers, httpVersion: "1.1")
        if answer.status == 304 || request.method == "HEAD" {
            return UpstreamResponse(head: head, body: .empty)
        }
        guard let slow = answer.slowBody, slow.pieces > 1 else {
            return UpstreamResponse(head: head, body: .bytes(body))
        }
        return UpstreamResponse(head: head, body: UpstreamBody(Self.pieces(of: body, slow.pieces, every: slow.interval)))
    }

    /// `body` in `count` pieces, each `interval` after the one before.
    private static func pieces(of body: ByteBuffer, _ count: Int, every interval: Duration) -> AsyncStream<ByteBuffer> {
        let size = (body.readableBytes + count - 1) / count
        var pieces: [ByteBuffer] = []
        var rest = body
        while let piece = rest.readSlice(length: min(size, rest.readableBytes)), piece.readableBytes > 0 {
            pieces.append(piece)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let task = Task {
            for piece in pieces {
                try? await Task.sleep(for: interval)
                continuation.yield(piece)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private static func read(_ body: UpstreamRequestBody?) async throws -> [UInt8]? {
        switch body?.content {
        case nil:
            return nil
        case .bytes(let buffer):
            return Array(buffer.readableBytesView)
        case .stream(let pump):
            let bytes = Mutex<[UInt8]>([])
            try await pump { chunk in bytes.withLock { $0 += chunk.readableBytesView } }
            return bytes.withLock { $0 }
        }
    }
}
