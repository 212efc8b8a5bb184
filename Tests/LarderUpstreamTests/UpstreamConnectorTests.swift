import LarderTestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import LarderUpstream

@Suite("UpstreamConnector: tunnels and WebSockets trust what curl trusts")
struct UpstreamConnectorTests {
    private let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

    /// Sends `GET path` through the connection's HTTP codec and returns the answer's status.
    private func status(
        of path: String,
        over channel: NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound>
    ) async throws -> UInt? {
        try await channel.executeThenClose { inbound, outbound in
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: ["Host": "localhost", "Connection": "close"])
            try await outbound.write(contentsOf: [.http(.head(head)), .http(.end(nil))])
            for try await part in inbound {
                if case .http(.head(let response)) = part {
                    return response.status.code
                }
            }
            return nil
        }
    }

    @Test("TLS to an origin signed by the additional CA is verified and carries the exchange")
    func additionalCATrusted() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.setRoute("/secure", .text("secret"))
        let connector = try UpstreamConnector(trust: UpstreamTrust(additionalCAFile: origin.caCertificatePath))

        let channel = try await connector.openWebSocket(
            host: "localhost", port: origin.port, tls: true, connectTimeout: .seconds(5), eventLoop: self.eventLoop)

        #expect(try await self.status(of: "/secure", over: channel) == 200)
        #expect(origin.requestCount("/secure") == 1)
        try await origin.stop()
    }

    @Test("TLS to an origin signed by an unknown CA fails its handshake before any request is sent")
    func unknownCARejected() async throws {
        let origin = try await TestOrigin.start(tls: true)
        origin.setRoute("/secure", .text("secret"))
        let connector = try UpstreamConnector(trust: UpstreamTrust())

        let error = await upstreamError {
            _ = try await connector.openWebSocket(
                host: "localhost", port: origin.port, tls: true, connectTimeout: .seconds(5), eventLoop: self.eventLoop)
        }
        #expect(error?.kind == .tls)
        #expect(error?.message.contains("CERTIFICATE_VERIFY_FAILED") == true)
        #expect(origin.requestCount("/secure") == 0)
        try await origin.stop()
    }

    @Test("the host name is verified even for a trusted CA")
    func hostNameVerified() async throws {
        let origin = try await TestOrigin.start(tls: true)
        let connector = try UpstreamConnector(trust: UpstreamTrust(additionalCAFile: origin.caCertificatePath))

        // The IPv4-mapped IPv6 address reaches the same listener, but the leaf only names localhost and 127.0.0.1.
        let error = await upstreamError {
            _ = try await connector.openWebSocket(
                host: "::ffff:127.0.0.1", port: origin.port, tls: true, connectTimeout: .seconds(5), eventLoop: self.eventLoop)
        }
        #expect(error?.kind == .tls)
        try await origin.stop()
    }

    @Test("a tunnel carries bytes both ways")
    func tunnel() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/plain", .text("plain"))
        let connector = try UpstreamConnector(trust: UpstreamTrust())

        let channel = try await connector.openTunnel(
            host: "127.0.0.1", port: origin.port, connectTimeout: .seconds(5), eventLoop: self.eventLoop)
        let answer = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
            var answer = ""
            for try await buffer in inbound {
                answer += String(buffer: buffer)
            }
            return answer
        }

        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.hasSuffix("plain"))
        try await origin.stop()
    }

    @Test("a refused connection fails the open")
    func refused() async throws {
        let port = try RefusingPort()
        let connector = try UpstreamConnector(trust: UpstreamTrust())

        await #expect(throws: (any Error).self) {
            _ = try await connector.openTunnel(host: "127.0.0.1", port: port.port, connectTimeout: .seconds(5), eventLoop: self.eventLoop)
        }
    }

    @Test("an unreadable additional CA file is a configuration error, as for curl")
    func unreadableCAFile() {
        #expect(throws: UpstreamConfigurationError.self) {
            _ = try UpstreamConnector(trust: UpstreamTrust(additionalCAFile: "/nonexistent/larder-ca.pem"))
        }
    }
}
