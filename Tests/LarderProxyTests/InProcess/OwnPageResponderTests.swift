import Foundation
import LarderHTTP
import LarderIntrospection
import Synchronization
import Testing

@testable import LarderProxy

/// Pages another module serves at the proxy's address (LarderDevOffline's /dev/offline and
/// /metrics) reach it through `OwnPageResponder`: what the responder is handed, and the bytes the
/// client gets of what it answers.
@Suite("In-process proxy: own pages served by a responder")
struct OwnPageResponderTests {
    /// Answers `/dev/offline...` with what it was asked, and keeps the requests.
    final class EchoPages: OwnPageResponder {
        let requests = Mutex<[OwnPageRequest]>([])

        func handles(path: String) -> Bool {
            path.hasPrefix("/dev/offline")
        }

        func respond(to request: OwnPageRequest) async -> OwnPageResponse {
            self.requests.withLock { $0.append(request) }
            return OwnPageResponse(
                status: 303, headers: [HeaderField(name: "Location", value: "/dev/offline"), HeaderField(name: "X-First", value: "1")],
                body: "\(request.method) \(request.path) \(request.query ?? "-") \(String(decoding: request.body, as: UTF8.self))")
        }
    }

    @Test("a responder's path gets the request as values, and the client its status, headers in order and body, none for HEAD")
    func responder() async throws {
        let pages = EchoPages()
        try await InProcessProxy.with(upstream: ScriptedUpstream(), pages: { _ in pages }) { proxy in
            let own = "127.0.0.1:\(proxy.port)"
            let posted = RawAnswer(
                bytes: try await proxy.send(
                    "POST /dev/offline/actions/offline?return=x HTTP/1.1\r\nHost: \(own)\r\nOrigin: http://\(own)\r\n"
                        + "Content-Length: 6\r\n\r\noff=on"))
            #expect(posted.head.hasPrefix("HTTP/1.1 303 See Other\r\n"))
            #expect(posted.head.contains("Location: /dev/offline\r\nX-First: 1\r\n"))
            #expect(posted.header("content-length") == "49")
            #expect(posted.body == "POST /dev/offline/actions/offline return=x off=on")
            let head = RawAnswer(bytes: try await proxy.send("HEAD /dev/offline HTTP/1.1\r\nHost: \(own)\r\n\r\n"))
            #expect(head.status == 303)
            #expect(head.header("content-length") == "20")
            #expect(head.body.isEmpty)
            let asked = pages.requests.withLock { $0 }
            #expect(asked.map(\.method) == ["POST", "HEAD"])
            #expect(asked.first?.headers.first(name: "origin") == "http://\(own)")
            #expect(asked.allSatisfy { $0.clientIsLoopback })
        }
    }

    @Test("without a responder, /dev/offline and /metrics are not found; the proxy's own pages stay")
    func none() async throws {
        try await InProcessProxy.with(upstream: ScriptedUpstream()) { proxy in
            let own = "127.0.0.1:\(proxy.port)"
            for path in ["/dev/offline", "/dev/offline.json", "/metrics"] {
                let answer = RawAnswer(bytes: try await proxy.send("GET \(path) HTTP/1.1\r\nHost: \(own)\r\n\r\n"))
                #expect(answer.status == 404, "\(path)")
                #expect(answer.body.contains("Larder has no page at \(path)."), "\(path)")
            }
            let landing = RawAnswer(bytes: try await proxy.send("GET / HTTP/1.1\r\nHost: \(own)\r\n\r\n"))
            #expect(landing.status == 200)
        }
    }
}
