import Testing

@testable import LarderProxy

@Suite("InterceptionHost")
struct InterceptionHostTests {
    @Test(
        "DNS names are lower-cased and lose a trailing dot",
        arguments: [
            ("games.example", "games.example"),
            ("Games.EXAMPLE.", "games.example"),
            ("_service.example", "_service.example"),
            ("*.example.com", "*.example.com"),
            ("localhost", "localhost"),
        ]
    )
    func dnsNames(host: String, normalised: String) throws {
        let parsed = try InterceptionHost(host)
        #expect(parsed.name == normalised)
        #expect(parsed.kind == .dnsName)
    }

    @Test("IPv4 literals become 4 address bytes")
    func ipv4() throws {
        let parsed = try InterceptionHost("192.0.2.7")
        #expect(parsed.name == "192.0.2.7")
        #expect(parsed.kind == .ipv4([192, 0, 2, 7]))
    }

    @Test(
        "IPv6 literals, bracketed or not, become 16 bytes and one canonical name",
        arguments: ["2001:db8::1", "[2001:DB8::1]", "2001:0db8:0:0:0:0:0:1"]
    )
    func ipv6(host: String) throws {
        let parsed = try InterceptionHost(host)
        #expect(parsed.name == "2001:db8::1")
        #expect(parsed.kind == .ipv6([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))
    }

    @Test(
        "invalid hosts are refused with an error naming them",
        arguments: [
            ("", "empty"),
            (".", "empty"),
            (String(repeating: "a.", count: 127) + "a", "at most 253"),
            ("exa mple.com", "only letters"),
            ("bad/host", "only letters"),
            ("host:443", "only letters"),
            ("fe80::1%eth0", "only letters"),
            ("a..b", "empty label"),
            (".example", "empty label"),
            (String(repeating: "x", count: 64) + ".example", "longer than 63"),
            ("spiele.bücher.example", "xn--"),
            ("a*.example", "first label"),
            ("www.*.example", "first label"),
        ]
    )
    func invalid(host: String, problem: String) {
        let error = #expect(throws: CertificateAuthorityError.self) {
            try InterceptionHost(host)
        }
        #expect(error?.kind == .invalidHost)
        #expect(error?.subject == host)
        #expect(error?.description.contains("\"\(host)\"") == true)
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }

    @Test("the longest valid name (253 characters) is accepted and its common name cut to 64")
    func longestName() throws {
        let label = String(repeating: "a", count: 63)
        let host = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(host.count == 253)
        let parsed = try InterceptionHost(host)
        #expect(parsed.name == host)
        #expect(parsed.commonName == String(host.prefix(64)))
    }
}
