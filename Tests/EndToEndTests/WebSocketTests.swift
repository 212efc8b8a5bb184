import Foundation
import LarderTestSupport
import Testing

/// WebSockets through the real binary: a stream is relayed, not cached (docs/SERVING.md, HTTPS and
/// streams), plain and inside an intercepted TLS tunnel.
@Suite("End to end: WebSocket")
struct WebSocketTests {
    /// Runs `body` with a WebSocket origin and a proxy started with `arguments`.
    private func withWebSocketOrigin(
        tls: Bool = false,
        arguments: (WebSocketEchoOrigin) -> [String] = { _ in [] },
        _ body: (LarderProcess, WebSocketEchoOrigin) async throws -> Void
    ) async throws {
        let origin = try await WebSocketEchoOrigin.start(tls: tls)
        // Defaults otherwise: WebSocket origins listen on ports other than 443.
        let larder = try await LarderProcess(serve: arguments(origin))
        do {
            try await body(larder, origin)
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            try? await origin.stop()
            throw error
        }
        await larder.tearDown()
        try? await origin.stop()
    }

    @Test("ws:// through the proxy: the handshake reaches the origin, frames flow both ways byte for byte, nothing is stored")
    func plainWebSocket() async throws {
        try await self.withWebSocketOrigin { larder, origin in
            let client = try await WebSocketTestClient.connect(
                through: larder.port, to: origin.url("/chat?room=1"), protocols: ["chat", "superchat"])
            defer { Task { await client.close() } }

            #expect(client.status == 101, "\(client.responseHead)")
            #expect(client.header("sec-websocket-accept") == WebSocketTestClient.expectedAccept)
            #expect(client.header("sec-websocket-protocol") == "chat")
            #expect(client.header("upgrade")?.lowercased() == "websocket")
            #expect(client.header("cache-status")?.contains("detail=websocket") == true, "\(client.responseHead)")
            // The origin's first frame may come with its 101: it must not be lost.
            #expect(try await client.receiveText() == "welcome")

            try await client.sendText("hello")
            #expect(try await client.receiveText() == "echo: hello")
            let long = String(repeating: "0123456789", count: 1_000)
            try await client.sendText(long)
            #expect(try await client.receiveText() == "echo: " + long)

            try await client.sendClose()
            let closing = try await client.receiveFrame()
            #expect(closing.opcode == 0x8)
            #expect(closing.payload == [0x03, 0xE8])
            #expect(await client.waitForClose())

            let handshake = try #require(origin.handshakeRequests.first)
            #expect(handshake.uri == "/chat?room=1", "origin-form upstream")
            #expect(handshake.headers["via"].contains("1.1 larder"))
            #expect(handshake.headers["sec-websocket-key"] == [WebSocketTestClient.key])
            #expect(filesUnder(larder.cacheDirectory + "/bodies").isEmpty, "a stream is not stored")
        }
    }

    @Test("ws:// as Chromium sends it, CONNECT 127.0.0.1:PORT then the handshake inside, works on defaults; nothing is stored")
    func webSocketInsideConnect() async throws {
        try await self.withWebSocketOrigin { larder, origin in
            #expect(origin.port != 443)
            let client = try await WebSocketTestClient.connect(
                through: larder.port, to: origin.url("/chat?room=2"), protocols: ["chat"], tunnelled: true)
            defer { Task { await client.close() } }

            #expect(client.status == 101, "\(client.responseHead)")
            #expect(client.header("sec-websocket-accept") == WebSocketTestClient.expectedAccept)
            #expect(client.header("sec-websocket-protocol") == "chat")
            #expect(client.header("cache-status")?.contains("detail=websocket") == true, "\(client.responseHead)")
            #expect(try await client.receiveText() == "welcome")
            try await client.sendText("through connect")
            #expect(try await client.receiveText() == "echo: through connect")
            let long = String(repeating: "abcdefghij", count: 1_000)
            try await client.sendText(long)
            #expect(try await client.receiveText() == "echo: " + long)
            try await client.sendClose()
            #expect(try await client.receiveFrame().opcode == 0x8)
            #expect(await client.waitForClose())

            let handshake = try #require(origin.handshakeRequests.first)
            #expect(handshake.uri == "/chat?room=2")
            #expect(handshake.headers["host"] == ["127.0.0.1:\(origin.port)"])
            #expect(handshake.headers["via"].contains("1.1 larder"))
            #expect(filesUnder(larder.cacheDirectory + "/bodies").isEmpty, "a stream is not stored")
        }
    }

    @Test("a refused handshake is relayed as the origin answered it, and the connection closes")
    func refusedHandshake() async throws {
        try await self.withWebSocketOrigin { larder, origin in
            let client = try await WebSocketTestClient.connect(through: larder.port, to: origin.url("/refuse"))
            #expect(client.status == 403, "\(client.responseHead)")
            #expect(client.header("connection")?.lowercased() == "close")
            #expect(try await client.readToEnd() == "no WebSocket here")
            await client.close()
        }
    }

    @Test("wss:// inside an intercepted tunnel: the upstream certificate is verified with --upstream-ca and frames flow")
    func secureWebSocket() async throws {
        try await self.withWebSocketOrigin(tls: true, arguments: { ["--upstream-ca", $0.caCertificatePath ?? ""] }) { larder, origin in
            let larderCA = larder.cacheDirectory + "/ca/ca.pem"
            let client = try await WebSocketTestClient.connect(through: larder.port, to: origin.url("/secure"), trusting: larderCA)
            defer { Task { await client.close() } }
            #expect(client.status == 101, "\(client.responseHead)")
            #expect(client.header("sec-websocket-accept") == WebSocketTestClient.expectedAccept)
            #expect(try await client.receiveText() == "welcome")
            try await client.sendText("over tls")
            #expect(try await client.receiveText() == "echo: over tls")
            #expect(origin.handshakeRequests.first?.uri == "/secure")
        }
    }

    @Test("wss:// to an upstream whose certificate Larder cannot verify: 502 saying so, never an unverified stream")
    func untrustedUpstream() async throws {
        try await self.withWebSocketOrigin(tls: true) { larder, origin in
            let larderCA = larder.cacheDirectory + "/ca/ca.pem"
            let client = try await WebSocketTestClient.connect(through: larder.port, to: origin.url("/secure"), trusting: larderCA)
            #expect(client.status == 502, "\(client.responseHead)")
            let page = try await client.readToEnd()
            #expect(page.contains("TLS handshake"), "\(page)")
            #expect(page.lowercased().contains("certificate"), "\(page)")
            #expect(origin.handshakeRequests.isEmpty)
            await client.close()
        }
    }

    @Test("offline mode answers a WebSocket handshake 504 at once; an origin that is down gives 502")
    func offlineAndDown() async throws {
        try await self.withWebSocketOrigin(arguments: { _ in ["--offline"] }) { larder, origin in
            let client = try await WebSocketTestClient.connect(through: larder.port, to: origin.url("/chat"))
            #expect(client.status == 504)
            #expect(client.header("cache-status")?.contains("detail=offline") == true)
            #expect(origin.handshakeRequests.isEmpty)
            await client.close()
        }
        try await self.withWebSocketOrigin { larder, origin in
            let url = origin.url("/chat")
            try await origin.stop()
            let client = try await WebSocketTestClient.connect(through: larder.port, to: url)
            #expect(client.status == 502)
            #expect(try await client.readToEnd().contains("could not connect"))
            await client.close()
        }
    }
}
