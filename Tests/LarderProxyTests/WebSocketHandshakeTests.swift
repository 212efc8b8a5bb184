import LarderHTTP
import LarderStore
import NIOCore
import NIOHTTP1
import Testing

@testable import LarderProxy

@Suite("WebSocketHandshake")
struct WebSocketHandshakeTests {
    private func request(_ headers: [(String, String)], method: HTTPMethod = .GET) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: "http://game.example/socket", headers: HTTPHeaders(headers))
    }

    @Test(
        "an upgrade is a GET naming websocket in Upgrade and upgrade in Connection, as tokens in any case",
        arguments: [
            ([("Upgrade", "websocket"), ("Connection", "Upgrade")], true),
            ([("Upgrade", "WebSocket"), ("Connection", "keep-alive, Upgrade")], true),
            ([("Upgrade", "h2c, websocket"), ("Connection", "upgrade")], true),
            ([("Upgrade", "websocket")], false),
            ([("Connection", "Upgrade")], false),
            ([("Upgrade", "h2c"), ("Connection", "Upgrade")], false),
            ([("Upgrade", "websocketx"), ("Connection", "Upgrade")], false),
            ([("Upgrade", "websocket"), ("Connection", "upgraded")], false),
        ]
    )
    func recognisesUpgrades(headers: [(String, String)], isUpgrade: Bool) {
        #expect(WebSocketHandshake.isUpgrade(self.request(headers)) == isUpgrade)
    }

    @Test("a POST with the upgrade fields is not a WebSocket handshake")
    func onlyGET() {
        #expect(!WebSocketHandshake.isUpgrade(self.request([("Upgrade", "websocket"), ("Connection", "Upgrade")], method: .POST)))
    }

    @Test("the upstream request is origin-form with Host from the URL, keeps the handshake fields and drops the proxy's")
    func upstreamRequest() throws {
        let head = self.request([
            ("Host", "wrong.example"), ("Upgrade", "websocket"), ("Connection", "Upgrade, X-Secret"), ("X-Secret", "1"),
            ("Proxy-Connection", "keep-alive"), ("Proxy-Authorization", "Basic eA=="), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Protocol", "chat"), ("Via", "1.1 browser-proxy"),
        ])
        let url = try HTTPURL(parsing: "http://game.example:8081/socket?room=2#frag")
        let upstream = WebSocketHandshake.upstreamRequest(head, url: url)
        let names = upstream.headers.map { $0.name.lowercased() }

        #expect(upstream.method == .GET)
        #expect(upstream.uri == "/socket?room=2")
        #expect(upstream.version == .http1_1)
        #expect(upstream.headers["host"] == ["game.example:8081"])
        #expect(upstream.headers["upgrade"] == ["websocket"])
        #expect(upstream.headers["connection"] == ["Upgrade"])
        #expect(upstream.headers["sec-websocket-key"] == ["dGhlIHNhbXBsZSBub25jZQ=="])
        #expect(upstream.headers["sec-websocket-version"] == ["13"])
        #expect(upstream.headers["sec-websocket-protocol"] == ["chat"])
        #expect(upstream.headers["via"] == ["1.1 browser-proxy, 1.1 larder"])
        #expect(!names.contains("proxy-connection"))
        #expect(!names.contains("proxy-authorization"))
        #expect(!names.contains("x-secret"), "a field named by Connection is hop-by-hop")
    }

    @Test("the 101 keeps the accept key and subprotocol, the upgrade, and adds Via and Cache-Status")
    func switchingResponse() {
        let upstream = HTTPResponseHead(
            version: .http1_1, status: .switchingProtocols,
            headers: HTTPHeaders([
                ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
                ("Sec-WebSocket-Protocol", "chat"), ("Keep-Alive", "timeout=5"),
            ]))
        let head = WebSocketHandshake.switchingResponse(upstream, version: .http1_1, cacheStatus: .forward(.bypass, detail: "websocket"))

        #expect(head.status == .switchingProtocols)
        #expect(head.headers["upgrade"] == ["websocket"])
        #expect(head.headers["connection"] == ["Upgrade"])
        #expect(head.headers["sec-websocket-accept"] == ["s3pPLMBiTxaQ9kYGzzhZRbK+xOo="])
        #expect(head.headers["sec-websocket-protocol"] == ["chat"])
        #expect(head.headers["keep-alive"].isEmpty)
        #expect(head.headers["via"] == ["1.1 larder"])
        #expect(head.headers["cache-status"] == ["larder; fwd=bypass; detail=websocket"])
    }

    @Test("any other answer is relayed with Connection: close")
    func refusalResponse() {
        let upstream = HTTPResponseHead(
            version: .http1_1, status: .forbidden, headers: HTTPHeaders([("Content-Length", "5"), ("Connection", "keep-alive")]))
        let head = WebSocketHandshake.refusalResponse(upstream, version: .http1_1, cacheStatus: .forward(.bypass, detail: "websocket"))

        #expect(head.status == .forbidden)
        #expect(head.headers["content-length"] == ["5"])
        #expect(head.headers["connection"] == ["close"])
    }
}
