/// Nothing: WebSocket upstreams are opened by `UpstreamConnector` (LarderUpstream), which
/// `ProxyConnection` gets from `ProxyServer`. Kept only while ForwardProxy.swift still makes one.
struct WebSocketUpstream: Sendable {
    init(additionalCAFile: String?, connectTimeout: Duration) {}
}
