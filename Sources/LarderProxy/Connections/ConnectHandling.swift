/// What Larder does with an allowed `CONNECT host:port`: the rule as values, carried out by
/// `ProxyConnection` (`Sources/LarderProxy/Connections/ProxyConnection+Connect.swift`).
///
/// Larder only passes bytes it cannot read (a blind tunnel) to the ports in `--connect-ports`.
/// What it can read goes through its own HTTP serving at any port, as absolute-form requests do:
/// TLS to an intercepted host is terminated with Larder's certificate for the host (whatever the
/// port: interception works per host) and plain HTTP, such as a browser's `ws://` upgrade, is
/// served as `http://host:port/...`.
enum ConnectHandling: Sendable, Equatable {
    /// Open the upstream connection, answer 200 and tunnel blind at once, as a pass-through host
    /// (`--tunnel`, `--no-intercept`) on a `--connect-ports` port always was: a host that cannot be
    /// reached gets a 502, and protocols whose server speaks first work.
    case tunnelAtOnce
    /// Answer 200 and decide from the client's first bytes (``afterFirstBytes(_:intercepted:port:connectPorts:)``).
    case sniff

    /// What to do once the client's first bytes are known.
    enum Action: Sendable, Equatable {
        /// Terminate TLS and serve the requests inside as `https://host:port/...`.
        case intercept
        /// Serve the requests as `http://host:port/...`.
        case serveHTTP
        /// Open the upstream connection and copy bytes both ways.
        case tunnel
        /// Close the connection; the reason is logged.
        case refuse(reason: String)
    }

    /// What a `CONNECT` leads to before any byte of the tunnel: pass-through hosts on an allowed
    /// port are tunnelled at once, everything else waits for the first bytes.
    static func beforeFirstBytes(intercepted: Bool, port: Int, connectPorts: Set<Int>?) -> ConnectHandling {
        !intercepted && Self.allowsBlindTunnel(port: port, connectPorts: connectPorts) ? .tunnelAtOnce : .sniff
    }

    /// What a sniffed tunnel becomes: TLS is intercepted (or tunnelled blind for a pass-through
    /// host), HTTP is served, anything else tunnelled blind; blind tunnels only to `connectPorts`.
    static func afterFirstBytes(_ traffic: TunnelTraffic, intercepted: Bool, port: Int, connectPorts: Set<Int>?) -> Action {
        switch traffic {
        case .http:
            return .serveHTTP
        case .tls where intercepted:
            return .intercept
        case .tls, .other:
            if Self.allowsBlindTunnel(port: port, connectPorts: connectPorts) {
                return .tunnel
            }
            let what =
                traffic == .tls ? "TLS for a host Larder passes through untouched (--tunnel, --no-intercept)" : "neither TLS nor HTTP"
            let allowed = connectPorts.map { $0.sorted().map(String.init).joined(separator: ", ") } ?? "any"
            return .refuse(
                reason: "the tunnel to port \(port) carries \(what); Larder tunnels that only to --connect-ports (allowed: \(allowed))")
        }
    }

    /// Whether bytes Larder cannot read may be tunnelled to `port`.
    static func allowsBlindTunnel(port: Int, connectPorts: Set<Int>?) -> Bool {
        connectPorts?.contains(port) ?? true
    }
}
