import LarderHTTP
import LarderStore
import NIOHTTP1

/// The HTTP side of a WebSocket relay (RFC 6455 section 4): recognising an upgrade request and
/// rewriting the handshake's two heads for the next hop. A stream is not an object: nothing
/// about it is cached.
enum WebSocketHandshake {
    /// Whether `head` asks to switch the connection to WebSocket: a GET whose `Upgrade` names
    /// `websocket` and whose `Connection` names `upgrade` (tokens, case-insensitive).
    static func isUpgrade(_ head: HTTPRequestHead) -> Bool {
        // Every forwarded request asks: the common answer costs no allocation.
        guard head.method == .GET, head.headers.contains(name: "upgrade") else { return false }
        let upgradesToWebSocket = head.headers[canonicalForm: "upgrade"].contains { token in
            let name = token.lowercased()
            return name == "websocket" || name.hasPrefix("websocket/")
        }
        return upgradesToWebSocket && head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The request head for upstream: origin-form, `Host` from the URL, hop-by-hop fields dropped
    /// except the upgrade itself, and `Via` added.
    static func upstreamRequest(_ head: HTTPRequestHead, url: HTTPURL) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", url.authority)])
        for field in UpstreamRequestPlan.forwardedFields(head.headers.fields) {
            headers.add(name: field.name, value: field.value)
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
        ProxyAnswerFields.add(to: &headers, via: true, cacheStatus: cacheStatus)
        return HTTPResponseHead(version: version, status: .switchingProtocols, headers: headers)
    }

    /// Any other answer (the server refused the upgrade): relayed as an ordinary response, after
    /// which the connection closes.
    static func refusalResponse(_ head: HTTPResponseHead, version: HTTPVersion, cacheStatus: CacheStatus)
        -> HTTPResponseHead
    {
        var headers = HopByHopHeaders.removing(from: head.headers)
        ProxyAnswerFields.add(to: &headers, via: true, cacheStatus: cacheStatus, close: true)
        return HTTPResponseHead(version: version, status: head.status, headers: headers)
    }
}
