import LarderHTTP
import LarderStore
import NIOHTTP1

/// Where a request from a client goes, decided from its head alone.
public enum RequestRoute: Sendable, Equatable {
    /// An absolute-form request for another host: served through the cache.
    case forward(HTTPURL)
    /// A `CONNECT` tunnel to `host:port`, to any port: what it carries decides what it becomes
    /// (`ConnectHandling`).
    case connect(host: String, port: Int)
    /// A request addressed to the proxy itself (its own pages).
    case ownPage(path: String, query: String?)
    /// Refused with this status and a reason for the client.
    case reject(HTTPResponseStatus, String)

    /// The addresses that mean "this proxy": `host` as lower-case name or IP literal (no brackets), `port` as bound.
    public struct OwnAuthorities: Sendable, Hashable {
        /// Host names and literals of this proxy.
        public var hosts: Set<String>
        /// The port the proxy listens on.
        public var port: Int

        /// Loopback names plus the listen address and the connection's local address.
        public init(port: Int, listenHost: String, localAddress: String? = nil) {
            var hosts: Set<String> = ["127.0.0.1", "localhost", "::1"]
            hosts.insert(Self.bare(listenHost))
            if let localAddress { hosts.insert(Self.bare(localAddress)) }
            self.hosts = hosts
            self.port = port
        }

        /// Whether `host:port` is this proxy.
        public func matches(host: String, port: Int) -> Bool {
            port == self.port && self.hosts.contains(Self.bare(host))
        }

        private static func bare(_ host: String) -> String {
            var host = host.lowercased()
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host
        }
    }

    /// Limits and policies that classification applies.
    public struct Rules: Sendable, Hashable {
        /// The longest request-target accepted (longer ones get 414).
        public var maximumURILength: Int
        /// Ports a blind `CONNECT` tunnel (bytes Larder neither intercepts nor reads as HTTP) may
        /// reach; `nil` allows any.
        public var connectPorts: Set<Int>?
        /// The most header fields a request may have (more get 431).
        public var maximumHeaderCount: Int
        /// The most bytes a request's header fields may take, names and values (more get 431).
        public var maximumHeaderBytes: Int

        /// Creates rules.
        public init(
            maximumURILength: Int = 16 * 1024,
            connectPorts: Set<Int>? = [443],
            maximumHeaderCount: Int = 100,
            maximumHeaderBytes: Int = 64 * 1024
        ) {
            self.maximumURILength = maximumURILength
            self.connectPorts = connectPorts
            self.maximumHeaderCount = maximumHeaderCount
            self.maximumHeaderBytes = maximumHeaderBytes
        }

        /// Why a request's head breaks these rules' limits, or nil.
        func limitProblem(_ head: HTTPRequestHead) -> RequestRoute? {
            let uri = head.uri
            if uri.utf8.count > self.maximumURILength {
                return .reject(
                    .uriTooLong, "The request target is \(uri.utf8.count) bytes; Larder accepts at most \(self.maximumURILength).")
            }
            if head.headers.count > self.maximumHeaderCount {
                return .reject(
                    .requestHeaderFieldsTooLarge,
                    "The request has \(head.headers.count) header fields; Larder accepts at most \(self.maximumHeaderCount)."
                )
            }
            var bytes = 0
            for field in head.headers {
                bytes += field.name.utf8.count + field.value.utf8.count
            }
            if bytes > self.maximumHeaderBytes {
                return .reject(
                    .requestHeaderFieldsTooLarge,
                    "The request's header fields take \(bytes) bytes; Larder accepts at most \(self.maximumHeaderBytes)."
                )
            }
            return nil
        }
    }

    /// Classifies a request head.
    public static func classify(_ head: HTTPRequestHead, own: OwnAuthorities, rules: Rules) -> RequestRoute {
        if let problem = rules.limitProblem(head) {
            return problem
        }
        let uri = head.uri
        if head.method == .CONNECT {
            return self.classifyConnect(uri, own: own)
        }
        if uri.hasPrefix("/") {
            guard let host = head.headers.first(name: "host") else {
                return .reject(.badRequest, "The request has no Host header.")
            }
            guard let authority = try? HTTPURL(parsing: "http://\(host)/"),
                own.matches(host: authority.host, port: authority.effectivePort)
            else {
                return .reject(
                    .badRequest,
                    "Larder is a forward proxy: set it as your HTTP proxy and send absolute URLs (GET http://host/path)."
                )
            }
            return self.ownPage(uri)
        }
        let lowered = uri.prefix(8).lowercased()
        var target = uri
        if WebSocketHandshake.isUpgrade(head),
            let scheme = ["ws://": "http://", "wss://": "https://"].first(where: { lowered.hasPrefix($0.key) })
        {
            // WebKit (libsoup) names a WebSocket's URL as it is, `GET ws://host/path`, where
            // Chromium writes `http://`: the same resource (RFC 6455 section 3).
            target = scheme.value + uri.dropFirst(scheme.key.count)
        } else if !(lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) {
            return .reject(.badRequest, "Unsupported request target '\(uri.prefix(200))'.")
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: target)
        } catch {
            return .reject(.badRequest, "\(error)")
        }
        if own.matches(host: url.host, port: url.effectivePort) {
            // Its Host must name the proxy too: a page whose name was rebound to this address
            // (DNS rebinding) must not reach the controls or the precache API under that name.
            if let host = head.headers.first(name: "host"),
                (try? HTTPURL(parsing: "http://\(host)/")).map({ own.matches(host: $0.host, port: $0.effectivePort) }) != true
            {
                return .reject(.badRequest, "The Host header '\(host.prefix(200))' does not name this proxy.")
            }
            return self.ownPage(url.requestTarget)
        }
        return .forward(url)
    }

    /// Classifies a request read inside a `CONNECT` tunnel to `host:port` that is served as HTTP:
    /// `scheme` is `https` inside intercepted TLS, `http` for plain HTTP. Origin-form targets are
    /// that origin's URLs, and absolute ones must name it; nothing else is accepted there.
    public static func classifyInTunnel(_ head: HTTPRequestHead, scheme: String, host: String, port: Int, rules: Rules) -> RequestRoute {
        if let problem = rules.limitProblem(head) {
            return problem
        }
        let uri = head.uri
        guard head.method != .CONNECT else {
            return .reject(.badRequest, "CONNECT inside a tunnel is not supported.")
        }
        let origin = TunnelOrigin(scheme: scheme, host: host, port: port)
        let authority = origin.authority
        let target: String
        if uri.hasPrefix("/") {
            target = origin.base + uri
        } else if uri.lowercased().hasPrefix("\(scheme)://") {
            target = uri
        } else {
            return .reject(.badRequest, "Unsupported request target '\(uri.prefix(200))' inside the tunnel to \(authority).")
        }
        do {
            let url = try HTTPURL(parsing: target)
            guard url.scheme == scheme, url.host == host.lowercased(), url.effectivePort == port else {
                return .reject(.badRequest, "A request inside the tunnel to \(authority) may not ask for \(url.authority).")
            }
            return .forward(url)
        } catch {
            return .reject(.badRequest, "\(error)")
        }
    }

    private static func ownPage(_ target: String) -> RequestRoute {
        let withoutFragment = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return .ownPage(path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil)
    }

    private static func classifyConnect(_ uri: String, own: OwnAuthorities) -> RequestRoute {
        guard !uri.contains("/"), let url = try? HTTPURL(parsing: "https://\(uri)/"), let port = url.port else {
            return .reject(.badRequest, "CONNECT needs host:port, got '\(uri.prefix(200))'.")
        }
        if own.matches(host: url.host, port: port) {
            return .reject(.badRequest, "Refusing to tunnel to the proxy itself.")
        }
        return .connect(host: url.host, port: port)
    }
}

extension RequestRoute {
    /// The route for a client that may reach only `reach` (nil: anything): a request or `CONNECT`
    /// naming an address of the box's own it may not reach (`localhost`, `127.0.0.1`, `[::1]`,
    /// `169.254.169.254`) is refused `403`, before the cache or the network is asked (docs/SERVING.md,
    /// "A shared box (LAN mode)"). Names are judged again at connect time.
    public func limited(to reach: UpstreamReach?) -> RequestRoute {
        guard let reach else { return self }
        switch self {
        case .forward(let url) where !reach.mayName(host: url.host, port: url.effectivePort):
            return .reject(.forbidden, UpstreamReach.refusal(host: url.host, port: url.effectivePort))
        case .connect(let host, let port) where !reach.mayName(host: host, port: port):
            return .reject(.forbidden, UpstreamReach.refusal(host: host, port: port))
        default:
            return self
        }
    }
}
