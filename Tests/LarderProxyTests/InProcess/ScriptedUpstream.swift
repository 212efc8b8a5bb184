import Foundation
import LarderUpstream
import NIOCore
import Synchronization

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
        /// Fail instead of answering.
        var failure: UpstreamError.Kind?
    }

    private struct State {
        var answers: [String: Answer] = [:]
        var requests: [UpstreamRequest] = []
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

    /// The requests for `url` so far.
    func requests(for url: String) -> [UpstreamRequest] {
        self.requests.filter { $0.url == url }
    }

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let answer = self.state.withLock { state -> Answer? in
            state.requests.append(request)
            return state.answers[request.url]
        }
        guard let answer else {
            throw UpstreamError(kind: .connectionRefused, message: "nothing scripted for \(request.url)", url: request.url)
        }
        if answer.delay > .zero {
            try await Task.sleep(for: answer.delay)
        }
        if let failure = answer.failure {
            throw UpstreamError(kind: failure, message: "scripted \(failure)", url: request.url)
        }
        let body = ByteBuffer(string: answer.body)
        var headers = answer.headers.map { (name: $0.0, value: $0.1) }
        headers.append((name: "Content-Length", value: String(body.readableBytes)))
        return UpstreamResponse(
            head: UpstreamResponseHead(status: answer.status, reason: "", headers: headers, httpVersion: "1.1"),
            body: answer.status == 304 || request.method == "HEAD" ? .empty : .bytes(body)
        )
    }
}
