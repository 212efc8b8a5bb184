import LarderStore
import NIOHTTP1

/// The HTTP side of a WebSocket relay (RFC 6455 section 4): recognising an upgrade request and
/// rewriting the handshake's two heads for the next hop. A stream is not an object: nothing
/// about it is cached.
enum WebSocketHandshake {
    /// Whether `head` asks to switch the connection to WebSocket: a GET whose `Upgrade` names
    /// `websocket` and whose `Connection` names `upgrade` (tokens, case-insensitive).
    static func isUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.method == .GET
            && Self.tokens(head.headers["upgrade"]).contains { $0 == "websocket" || $0.hasPrefix("websocket/") }
            && Self.tokens(head.headers["connection"]).contains("upgrade")
    }

    /// The request head for upstream: origin-form, `Host` from the URL, hop-by-hop fields dropped
    /// except the upgrade itself, and `Via` added.
    static func upstreamRequest(_ head: HTTPRequestHead, url: HTTPURL) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", url.authority)])
        for (name, value) in ForwardProxy.upstreamHeaders(head.headers) {
            headers.add(name: name, value: value)
        }
        for value in head.headers["upgrade"] {
            headers.add(name: "Upgrade", value: value)
        }
        headers.add(name: "Connection", value: "Upgrade")
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: url.requestTarget, headers: headers)
    }

    /// Upstream's `101 Switching Protocols` as the client gets it: its own fields (the accept key,
    /// the chosen subprotocol and extensions) with the upgrade kept, and Larder's `Via` and
    /// `Cache-Status`.
    static func switchingResponse(_ head: HTTPResponseHead, version: HTTPVersion, cacheStatus: CacheStatus)
        -> HTTPResponseHead
    {
        var headers = HopByHopHeaders.removing(from: head.headers)
        for value in head.headers["upgrade"] {
            headers.add(name: "Upgrade", value: value)
        }
        headers.add(name: "Connection", value: "Upgrade")
        ForwardProxy.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: false)
        return HTTPResponseHead(version: version, status: .switchingProtocols, headers: headers)
    }

    /// Any other answer (the server refused the upgrade): relayed as an ordinary response, after
    /// which the connection closes.
    static func refusalResponse(_ head: HTTPResponseHead, version: HTTPVersion, cacheStatus: CacheStatus)
        -> HTTPResponseHead
    {
        var headers = HopByHopHeaders.removing(from: head.headers)
        ForwardProxy.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: true)
        return HTTPResponseHead(version: version, status: head.status, headers: headers)
    }

    private static func tokens(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }
    }
}
