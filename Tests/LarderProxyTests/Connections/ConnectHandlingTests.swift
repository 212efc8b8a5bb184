import Testing

@testable import LarderProxy

@Suite("ConnectHandling: what an allowed CONNECT becomes")
struct ConnectHandlingTests {
    @Test(
        "a pass-through host on a --connect-ports port is tunnelled at once; everything else waits for the first bytes",
        arguments: [
            (false, 443, Set([443]), ConnectHandling.tunnelAtOnce),
            (false, 8080, nil, .tunnelAtOnce),
            (false, 8080, [443], .sniff),
            (true, 443, [443], .sniff),
            (true, 8080, [443], .sniff),
            (true, 8080, nil, .sniff),
        ] as [(Bool, Int, Set<Int>?, ConnectHandling)]
    )
    func beforeFirstBytes(intercepted: Bool, port: Int, connectPorts: Set<Int>?, expected: ConnectHandling) {
        #expect(ConnectHandling.beforeFirstBytes(intercepted: intercepted, port: port, connectPorts: connectPorts) == expected)
    }

    @Test(
        "HTTP is served on any port, TLS intercepted on any port, blind tunnels only to --connect-ports",
        arguments: [
            (TunnelTraffic.http, true, 8080, Set([443]), "serve"),
            (.http, false, 8080, [443], "serve"),
            (.http, true, 443, [443], "serve"),
            (.tls, true, 8443, [443], "intercept"),
            (.tls, true, 443, [443], "intercept"),
            (.tls, false, 8443, [443], "refuse"),
            (.tls, false, 8443, [443, 8443], "tunnel"),
            (.other, true, 443, [443], "tunnel"),
            (.other, true, 5432, nil, "tunnel"),
            (.other, true, 5432, [443], "refuse"),
            (.other, false, 5432, [443], "refuse"),
        ] as [(TunnelTraffic, Bool, Int, Set<Int>?, String)]
    )
    func afterFirstBytes(traffic: TunnelTraffic, intercepted: Bool, port: Int, connectPorts: Set<Int>?, expected: String) {
        let action = ConnectHandling.afterFirstBytes(traffic, intercepted: intercepted, port: port, connectPorts: connectPorts)
        switch action {
        case .serveHTTP: #expect(expected == "serve")
        case .intercept: #expect(expected == "intercept")
        case .tunnel: #expect(expected == "tunnel")
        case .refuse(let reason):
            #expect(expected == "refuse")
            #expect(reason.contains("port \(port)"))
            #expect(reason.contains("--connect-ports (allowed: 443)"))
        }
    }
}
