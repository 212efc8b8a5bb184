import LarderHTTP
import LarderUpstream
import NIOCore

/// Opens the upstream side of tunnels and WebSocket relays with an `UpstreamConnector`, recording
/// what each attempt says about its origin's health in an ``UpstreamHealthRegistry``, by
/// ``UpstreamHealthRule``.
struct HealthRecordingConnector: Sendable {
    let base: UpstreamConnector
    let health: UpstreamHealthRegistry

    /// Opens a blind tunnel's connection to `host:port`, counted under ``tunnelOrigin(host:port:)``.
    func openTunnel(
        host: String, port: Int, connectTimeout: Duration, reach: UpstreamReach?, eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let origin = Self.tunnelOrigin(host: host, port: port)
        do {
            let channel = try await self.base.openTunnel(
                host: host, port: port, connectTimeout: connectTimeout, reach: reach, eventLoop: eventLoop)
            self.health.record(.opened, origin: origin, rule: .tunnel)
            return channel
        } catch {
            self.health.record(.failed(error), origin: origin, rule: .tunnel)
            throw error
        }
    }

    /// Opens a WebSocket relay's connection to `url`'s host (with TLS for `https`).
    func openWebSocket(
        to url: HTTPURL, connectTimeout: Duration, reach: UpstreamReach?, eventLoop: any EventLoop
    ) async throws -> NIOAsyncChannel<WebSocketUpstreamInbound, WebSocketUpstreamOutbound> {
        do {
            let channel = try await self.base.openWebSocket(
                host: url.host, port: url.effectivePort, tls: url.scheme == "https", connectTimeout: connectTimeout, reach: reach,
                eventLoop: eventLoop)
            self.health.record(.opened, origin: url.origin, rule: .webSocket)
            return channel
        } catch {
            self.health.record(.failed(error), origin: url.origin, rule: .webSocket)
            throw error
        }
    }

    /// The origin a blind tunnel is counted under for back-off: TLS to `host:port`, as the
    /// requests inside it would be.
    static func tunnelOrigin(host: String, port: Int) -> String {
        let authority = "\(HTTPURL.bracketed(host: host)):\(port)"
        return (try? HTTPURL(parsing: "https://\(authority)/"))?.origin ?? "https://\(authority)"
    }
}
