import Foundation
import LarderHTTP
import LarderUpstream
import NIOCore
import Synchronization

/// An `Upstream` that answers from a table, records what it was asked, counts requests in
/// flight per host, and injects faults: how the runner is tested without sockets.
final class FakeUpstream: Upstream {
    /// What a URL answers; called once per request with the number of the try (1-based).
    typealias Responder = @Sendable (_ url: String, _ attempt: Int) -> Answer

    enum Answer: Sendable {
        case ok(String, contentType: String = "application/octet-stream")
        case status(Int)
        case failure(UpstreamError.Kind)
    }

    private struct State {
        var attempts: [String: Int] = [:]
        var order: [String] = []
        var inFlight: [String: Int] = [:]
        var peakInFlight: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let responder: Responder
    private let latency: Duration

    init(latency: Duration = .milliseconds(5), responder: @escaping Responder) {
        self.latency = latency
        self.responder = responder
    }

    /// URLs in the order they were requested (every try).
    var requestedURLs: [String] { self.state.withLock { $0.order } }
    /// Tries per URL.
    func attempts(_ url: String) -> Int { self.state.withLock { $0.attempts[url] ?? 0 } }
    /// The most requests one host had in flight at once.
    func peakInFlight(host: String) -> Int { self.state.withLock { $0.peakInFlight[host] ?? 0 } }

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let host = URLComponents(string: request.url).map { "\($0.host ?? ""):\($0.port ?? 80)" } ?? ""
        let attempt = self.state.withLock { state -> Int in
            state.attempts[request.url, default: 0] += 1
            state.order.append(request.url)
            state.inFlight[host, default: 0] += 1
            state.peakInFlight[host] = max(state.peakInFlight[host] ?? 0, state.inFlight[host] ?? 0)
            return state.attempts[request.url] ?? 1
        }
        defer { self.state.withLock { $0.inFlight[host, default: 1] -= 1 } }
        try await Task.sleep(for: self.latency)
        switch self.responder(request.url, attempt) {
        case .ok(let text, let contentType):
            let body = ByteBuffer(string: text)
            return UpstreamResponse(
                head: UpstreamResponseHead(
                    status: 200,
                    reason: "OK",
                    headers: [
                        HeaderField(name: "Content-Type", value: contentType),
                        HeaderField(name: "Content-Length", value: String(body.readableBytes)),
                    ],
                    httpVersion: "1.1"
                ),
                body: .bytes(body)
            )
        case .status(let status):
            return UpstreamResponse(
                head: UpstreamResponseHead(
                    status: status, reason: "", headers: [HeaderField(name: "Content-Length", value: "0")], httpVersion: "1.1"),
                body: .empty
            )
        case .failure(let kind):
            throw UpstreamError(kind: kind, message: "injected \(kind)", url: request.url)
        }
    }
}
