import Foundation
import LarderHTTP
import NIOCore
import NIOHTTP1
import Testing

@testable import LarderProxy

@Suite("Request routing, allow list, back-off")
struct RoutingTests {
    let own = RequestRoute.OwnAuthorities(port: 8080, listenHost: "127.0.0.1")
    let rules = RequestRoute.Rules()

    private func classify(_ method: HTTPMethod, _ uri: String, host: String? = nil) -> RequestRoute {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "host", value: host) }
        return RequestRoute.classify(
            HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers), own: self.own, rules: self.rules)
    }

    @Test("an absolute-form request for the proxy's own pages must carry a Host that names the proxy")
    func ownPagesNeedAnOwnHost() {
        #expect(
            self.classify(.POST, "http://127.0.0.1:8080/dev/offline/precache", host: "127.0.0.1:8080")
                == .ownPage(path: "/dev/offline/precache", query: nil))
        #expect(
            self.classify(.GET, "http://127.0.0.1:8080/dev/offline", host: "localhost:8080") == .ownPage(path: "/dev/offline", query: nil))
        guard
            case .reject(.badRequest, let reason) = self.classify(
                .POST, "http://127.0.0.1:8080/dev/offline/precache", host: "rebound.example:8080")
        else {
            Issue.record("a foreign Host reached the precache API")
            return
        }
        #expect(reason.contains("rebound.example"))
    }

    @Test("more header fields, or more header bytes, than the rules allow get 431, inside tunnels too")
    func headerLimits() {
        var many = HTTPHeaders()
        for index in 0...100 { many.add(name: "x-\(index)", value: "v") }
        let tooMany = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://a.example/", headers: many)
        guard case .reject(let status, let reason) = RequestRoute.classify(tooMany, own: self.own, rules: self.rules) else {
            Issue.record("101 header fields were accepted")
            return
        }
        #expect(status == .requestHeaderFieldsTooLarge)
        #expect(reason.contains("101 header fields"))
        guard
            case .reject(.requestHeaderFieldsTooLarge, _) = RequestRoute.classifyInTunnel(
                tooMany, scheme: "https", host: "a.example", port: 443, rules: self.rules)
        else {
            Issue.record("101 header fields were accepted inside a tunnel")
            return
        }
        let big = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "http://a.example/",
            headers: ["cookie": String(repeating: "c", count: 40_000), "x-more": String(repeating: "m", count: 30_000)]
        )
        guard case .reject(.requestHeaderFieldsTooLarge, _) = RequestRoute.classify(big, own: self.own, rules: self.rules) else {
            Issue.record("70 kB of header fields were accepted")
            return
        }
        var fine = HTTPHeaders()
        for index in 0..<100 { fine.add(name: "x-\(index)", value: "v") }
        let ok = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://a.example/", headers: fine)
        guard case .forward = RequestRoute.classify(ok, own: self.own, rules: self.rules) else {
            Issue.record("100 header fields were refused")
            return
        }
    }

    @Test("absolute-form requests are forwarded with their URL")
    func forward() {
        guard case .forward(let url) = self.classify(.GET, "http://Example.com:80/a?b=1#frag") else {
            Issue.record("not forwarded")
            return
        }
        #expect(url.host == "example.com")
        #expect(url.requestTarget == "/a?b=1")
    }

    @Test("a WebSocket handshake named ws:// or wss:// (as WebKit writes it) is forwarded as http:// or https://; nothing else is")
    func webSocketSchemes() {
        var upgrade = HTTPHeaders([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13")])
        upgrade.add(name: "Sec-WebSocket-Key", value: "dGhlIHNhbXBsZSBub25jZQ==")
        for (target, expected) in [
            ("ws://Live.example:8000/socket?x=1", "http://live.example:8000/socket?x=1"),
            ("wss://live.example/s", "https://live.example/s"),
        ] {
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: upgrade)
            guard case .forward(let url) = RequestRoute.classify(head, own: self.own, rules: self.rules) else {
                Issue.record("\(target) was not forwarded")
                continue
            }
            #expect(url.absoluteString == expected)
        }
        guard case .reject(.badRequest, _) = self.classify(.GET, "ws://live.example/socket") else {
            Issue.record("a ws:// target without an upgrade was taken")
            return
        }
    }

    @Test("requests addressed to the proxy itself are its own pages, never forwarded")
    func ownPages() {
        #expect(self.classify(.GET, "/dev/offline", host: "127.0.0.1:8080") == .ownPage(path: "/dev/offline", query: nil))
        #expect(self.classify(.GET, "/x?y=1", host: "localhost:8080") == .ownPage(path: "/x", query: "y=1"))
        #expect(self.classify(.GET, "/", host: "[::1]:8080") == .ownPage(path: "/", query: nil))
        #expect(self.classify(.GET, "http://127.0.0.1:8080/proxy.pac") == .ownPage(path: "/proxy.pac", query: nil))
        #expect(self.classify(.GET, "http://LOCALHOST:8080/") == .ownPage(path: "/", query: nil))
    }

    @Test("origin-form for another host, a missing Host, DNS-rebinding names are refused")
    func refusals() {
        guard case .reject(.badRequest, _) = self.classify(.GET, "/dev/offline", host: "evil.example") else {
            Issue.record("rebinding name accepted")
            return
        }
        guard case .reject(.badRequest, _) = self.classify(.GET, "/dev/offline", host: "127.0.0.1:9999") else {
            Issue.record("wrong port accepted")
            return
        }
        guard case .reject(.badRequest, _) = self.classify(.GET, "/") else {
            Issue.record("no Host accepted")
            return
        }
        guard case .reject(.badRequest, _) = self.classify(.GET, "ftp://example.com/") else {
            Issue.record("ftp accepted")
            return
        }
        guard case .reject(.uriTooLong, _) = self.classify(.GET, "http://example.com/" + String(repeating: "a", count: 20_000)) else {
            Issue.record("huge URI accepted")
            return
        }
    }

    @Test("CONNECT: any port (what the tunnel carries decides), never to the proxy itself")
    func connect() {
        #expect(self.classify(.CONNECT, "example.com:443") == .connect(host: "example.com", port: 443))
        #expect(self.classify(.CONNECT, "[::1]:443") == .connect(host: "::1", port: 443))
        #expect(self.classify(.CONNECT, "example.com:22") == .connect(host: "example.com", port: 22))
        guard case .reject(.badRequest, _) = self.classify(.CONNECT, "example.com") else {
            Issue.record("no port accepted")
            return
        }
        let anyPort = RequestRoute.classify(
            HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "127.0.0.1:8080", headers: [:]),
            own: self.own,
            rules: RequestRoute.Rules(connectPorts: nil)
        )
        guard case .reject(.badRequest, _) = anyPort else {
            Issue.record("tunnel to self allowed")
            return
        }
        guard case .reject(.badRequest, _) = self.classify(.CONNECT, "localhost:8080") else {
            Issue.record("tunnel to self allowed by name")
            return
        }
    }

    @Test(
        "inside a tunnel served as HTTP, origin-form targets are the tunnel's origin; absolute ones must name it",
        arguments: [
            ("https", "example.com", 443, "/a?b", "https://example.com/a?b"),
            ("https", "example.com", 8443, "/a", "https://example.com:8443/a"),
            ("https", "example.com", 443, "https://EXAMPLE.com/x", "https://example.com/x"),
            ("http", "127.0.0.1", 8080, "/chat?room=1", "http://127.0.0.1:8080/chat?room=1"),
            ("http", "example.com", 80, "/", "http://example.com/"),
            ("http", "::1", 9000, "/x", "http://[::1]:9000/x"),
            ("http", "example.com", 8080, "http://example.com:8080/y", "http://example.com:8080/y"),
        ]
    )
    func insideTunnel(scheme: String, host: String, port: Int, target: String, url: String) throws {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: ["host": host])
        let expected = try HTTPURL(parsing: url)
        #expect(RequestRoute.classifyInTunnel(head, scheme: scheme, host: host, port: port, rules: self.rules) == .forward(expected))
    }

    @Test(
        "inside a tunnel, another origin, another scheme, or CONNECT is refused with 400",
        arguments: [
            ("http", "example.com", 8080, HTTPMethod.GET, "http://other.example:8080/"),
            ("http", "example.com", 8080, .GET, "http://example.com:9090/"),
            ("http", "example.com", 8080, .GET, "https://example.com:8080/"),
            ("https", "example.com", 443, .GET, "http://example.com:443/"),
            ("http", "example.com", 8080, .CONNECT, "example.com:8080"),
            ("http", "example.com", 8080, .GET, "*"),
        ]
    )
    func refusedInsideTunnel(scheme: String, host: String, port: Int, method: HTTPMethod, target: String) {
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: ["host": host])
        guard case .reject(.badRequest, _) = RequestRoute.classifyInTunnel(head, scheme: scheme, host: host, port: port, rules: self.rules)
        else {
            Issue.record("\(method) \(target) accepted inside the \(scheme) tunnel to \(host):\(port)")
            return
        }
    }

    @Test("CIDR parsing and matching, IPv4 and IPv6")
    func cidr() throws {
        let lan = try CIDR(parsing: "192.168.1.0/24")
        #expect(lan.contains(try SocketAddress(ipAddress: "192.168.1.77", port: 1)))
        #expect(!lan.contains(try SocketAddress(ipAddress: "192.168.2.1", port: 1)))
        #expect(lan.contains(try SocketAddress(ipAddress: "::ffff:192.168.1.5", port: 1)))
        let v6 = try CIDR(parsing: "fd00::/8")
        #expect(v6.contains(try SocketAddress(ipAddress: "fd12::1", port: 1)))
        #expect(!v6.contains(try SocketAddress(ipAddress: "fe80::1", port: 1)))
        #expect(throws: CIDRParseError.self) { try CIDR(parsing: "10.0.0.0/33") }
        #expect(throws: CIDRParseError.self) { try CIDR(parsing: "example.com/8") }
        let list = ClientAllowList(networks: [lan])
        #expect(list.allows(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(list.allows(try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(!list.allows(try SocketAddress(ipAddress: "10.1.2.3", port: 1)))
        #expect(!ClientAllowList().allows(try SocketAddress(ipAddress: "192.168.1.77", port: 1)))
    }

    @Test("back-off starts after the threshold, doubles, caps, and ends on success")
    func backoff() {
        let policy = HostHealth.Policy(threshold: 2, initialWindow: 10, maximumWindow: 30)
        var health = HostHealth()
        let t0 = Date(timeIntervalSince1970: 0)
        health.recordConnectFailure("refused", now: t0, policy: policy)
        #expect(health.shouldAttempt(now: t0))
        health.recordConnectFailure("refused", now: t0, policy: policy)
        #expect(!health.shouldAttempt(now: t0.addingTimeInterval(9)))
        #expect(health.shouldAttempt(now: t0.addingTimeInterval(10)))
        health.recordConnectFailure("refused", now: t0, policy: policy)
        #expect(!health.shouldAttempt(now: t0.addingTimeInterval(19)))
        for _ in 0..<10 { health.recordConnectFailure("refused", now: t0, policy: policy) }
        #expect(health.shouldAttempt(now: t0.addingTimeInterval(30)))
        health.recordSuccess(now: t0)
        #expect(health.shouldAttempt(now: t0))
        #expect(health.consecutiveFailures == 0)
    }

    @Test("hop-by-hop headers and those Connection names are dropped")
    func hopByHop() {
        let headers = HTTPHeaders([
            ("Connection", "close, X-Secret"), ("Keep-Alive", "5"), ("X-Secret", "1"), ("Transfer-Encoding", "chunked"),
            ("Proxy-Authorization", "Basic x"), ("Content-Type", "text/html"), ("Upgrade", "h2c"),
        ])
        let result = HopByHopHeaders.removing(from: headers)
        #expect(result.map(\.name) == ["Content-Type"])
    }
}
