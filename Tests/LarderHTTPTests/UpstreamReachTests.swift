import Testing

@testable import LarderHTTP

/// What a client on another machine may make Larder reach of the box (issue 41, finding 2).
@Suite("Upstream reach of clients on other machines")
struct UpstreamReachTests {
    @Test(
        "the box's own addresses by name: loopback, localhost, link-local and unspecified refused; other names are judged when connected",
        arguments: [
            ("127.0.0.1", false), ("127.9.9.9", false), ("localhost", false), ("LOCALHOST.", false), ("api.localhost", false),
            ("[::1]", false), ("::1", false), ("0:0:0:0:0:0:0:1", false), ("::ffff:127.0.0.1", false), ("169.254.169.254", false),
            ("[fe80::1]", false), ("0.0.0.0", false), ("::", false), ("10.0.0.5", true), ("192.168.1.1", true),
            ("example.com", true), ("127.example.com", true), ("2130706433", true), ("[2001:db8::1]", true),
        ])
    func byName(host: String, reachable: Bool) {
        #expect(UpstreamReach().mayName(host: host, port: 80) == reachable)
    }

    @Test(
        "addresses as connected: what a name resolved to",
        arguments: [
            ("127.0.0.1", false), ("::1", false), ("::ffff:127.0.0.1", false), ("169.254.1.2", false), ("fe80::abcd", false),
            ("0.0.0.0", false), ("10.1.2.3", true), ("2001:db8::1", true), ("::ffff:10.1.2.3", true),
        ])
    func byAddress(address: String, reachable: Bool) throws {
        let bytes = try #require(IPNetwork.bytes(ofAddress: address))
        #expect(UpstreamReach().mayConnect(to: bytes, port: 443) == reachable)
    }

    @Test("what the config lists is reachable, at its port only when it names one")
    func allowed() throws {
        let reach = UpstreamReach(
            allowed: try ["127.0.0.1:8000", "169.254.0.0/16", "[::1]"].map { try #require(UpstreamReach.Allowance(parsing: $0)) })
        #expect(reach.mayName(host: "127.0.0.1", port: 8000))
        #expect(!reach.mayName(host: "127.0.0.1", port: 8001))
        #expect(reach.mayName(host: "localhost", port: 8000), "localhost is 127.0.0.1 or ::1")
        #expect(reach.mayName(host: "[::1]", port: 22))
        #expect(reach.mayConnect(to: [169, 254, 169, 254], port: 80))
        #expect(reach.mayConnect(to: IPNetwork.bytes(ofAddress: "::ffff:127.0.0.1")!, port: 8000))
    }

    @Test(
        "allowances parse addresses, networks and ports; anything else is nil",
        arguments: [
            ("127.0.0.1", "127.0.0.1/32"), ("127.0.0.1:8000", "127.0.0.1/32:8000"), ("169.254.0.0/16", "169.254.0.0/16"),
            ("10.1.2.3/8", "10.0.0.0/8"), ("[::1]:8000", "[0:0:0:0:0:0:0:1]/128:8000"), ("localhost:9", "127.0.0.1/32:9"),
            ("fe80::/10", "[fe80:0:0:0:0:0:0:0]/10"),
        ])
    func parses(text: String, description: String) {
        #expect(UpstreamReach.Allowance(parsing: text)?.description == description)
    }

    @Test("not allowances", arguments: ["box.example", "127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1/33", "1.2.3", "[::1", "::1/200", ""])
    func refuses(text: String) {
        #expect(UpstreamReach.Allowance(parsing: text) == nil)
    }
}
