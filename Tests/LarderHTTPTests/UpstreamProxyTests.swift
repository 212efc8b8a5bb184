import LarderHTTP
import Testing

@Suite("Upstream proxy: parsing, the environment, no_proxy")
struct UpstreamProxyTests {
    private let squid = ProxyEndpoint(scheme: "http", host: "squid.lan", port: 3128)

    @Test("proxy URLs are read as curl reads them: scheme optional, port 1080 by default, credentials decoded")
    func parsing() throws {
        #expect(try ProxyEndpoint(parsing: "http://squid.lan:3128") == self.squid)
        #expect(try ProxyEndpoint(parsing: "squid.lan:3128") == self.squid)
        #expect(try ProxyEndpoint(parsing: " HTTP://Squid.LAN:3128/ ") == self.squid)
        #expect(try ProxyEndpoint(parsing: "http://squid.lan").port == 1080)
        #expect(try ProxyEndpoint(parsing: "https://proxy.example:8443").scheme == "https")
        #expect(try ProxyEndpoint(parsing: "http://[::1]:3128").host == "::1")
        #expect(try ProxyEndpoint(parsing: "http://[::1]:3128").url == "http://[::1]:3128")
        let withCredentials = try ProxyEndpoint(parsing: "http://alice:p%40ss%3Aword@squid.lan:3128")
        #expect(withCredentials.username == "alice")
        #expect(withCredentials.password == "p@ss:word")
        #expect(withCredentials.host == "squid.lan")
    }

    @Test("credentials never show in what is logged or in errors")
    func credentialsHidden() throws {
        let endpoint = try ProxyEndpoint(parsing: "http://alice:hunter2@squid.lan:3128")
        #expect(endpoint.description == "http://***@squid.lan:3128")
        #expect(endpoint.url == "http://squid.lan:3128")
        #expect(self.squid.description == "http://squid.lan:3128")
        do {
            _ = try ProxyEndpoint(parsing: "http://alice:hunter2@squid.lan:99999")
            Issue.record("accepted a port out of range")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
            #expect("\(error)".contains("out of range"))
        }
    }

    @Test(
        "what is not a parent proxy is refused with the problem",
        arguments: [
            ("socks5://proxy:1080", "the scheme \"socks5\" is not supported; a parent proxy is http:// or https://"),
            ("", "it is empty; give a URL such as http://proxy.example:3128"),
            ("http://", "it has no host"),
            ("http://squid:http", "its port \"http\" is not a number"),
            ("http://squid:0", "its port 0 is out of range (1-65535)"),
            ("http://squid:3128/path", "it has a path, query or fragment; give only scheme, host and port"),
        ]
    )
    func refused(text: String, problem: String) {
        #expect(throws: ProxyEndpointError(problem: problem)) { try ProxyEndpoint(parsing: text) }
    }

    @Test("without a choice the environment decides: per scheme, lowercase first, all_proxy as the fallback, empty is unset")
    func environment() throws {
        let both = try UpstreamProxy.resolve(
            choice: nil, environment: ["http_proxy": "http://a:1", "HTTP_PROXY": "http://b:2", "HTTPS_PROXY": "http://c:3"])
        #expect(both.http == ProxyEndpoint(scheme: "http", host: "a", port: 1))
        #expect(both.https == ProxyEndpoint(scheme: "http", host: "c", port: 3))
        let uppercase = try UpstreamProxy.resolve(choice: nil, environment: ["HTTP_PROXY": "b:2"])
        #expect(uppercase.http?.host == "b")
        #expect(uppercase.https == nil)
        let all = try UpstreamProxy.resolve(choice: nil, environment: ["ALL_PROXY": "http://all:9", "https_proxy": ""])
        #expect(all.http?.host == "all")
        #expect(all.https?.host == "all")
        #expect(try UpstreamProxy.resolve(choice: nil, environment: [:]) == .direct)
        #expect(try UpstreamProxy.resolve(choice: nil, environment: ["no_proxy": "*"]).isDirect)
    }

    @Test("a choice wins over the environment; none ignores it, no_proxy included")
    func choice() throws {
        let environment = ["http_proxy": "http://a:1", "https_proxy": "http://c:3", "no_proxy": "intranet.example"]
        let chosen = try UpstreamProxy.resolve(choice: try UpstreamProxy.Choice(parsing: "http://squid.lan:3128"), environment: environment)
        #expect(chosen.http == self.squid)
        #expect(chosen.https == self.squid)
        #expect(chosen.endpoint(scheme: "http", host: "wiki.intranet.example") == nil)
        #expect(chosen.endpoint(scheme: "https", host: "games.example") == self.squid)
        #expect(try UpstreamProxy.Choice(parsing: "None") == .direct)
        #expect(try UpstreamProxy.resolve(choice: .direct, environment: environment) == .direct)
    }

    @Test("an unusable variable is named in the error")
    func badVariable() {
        #expect(throws: UpstreamProxyError(source: "https_proxy", problem: "its port \"x\" is not a number")) {
            try UpstreamProxy.resolve(choice: nil, environment: ["https_proxy": "proxy:x"])
        }
    }

    @Test("the parent is chosen per scheme: https, wss and tunnels use the https one, http and ws the http one")
    func perScheme() {
        let https = ProxyEndpoint(scheme: "https", host: "secure", port: 443)
        let proxy = UpstreamProxy(http: self.squid, https: https, noProxy: .none)
        #expect(proxy.endpoint(scheme: "http", host: "a.example") == self.squid)
        #expect(proxy.endpoint(scheme: "ws", host: "a.example") == self.squid)
        #expect(proxy.endpoint(scheme: "https", host: "a.example") == https)
        #expect(proxy.endpoint(scheme: "wss", host: "a.example") == https)
        #expect(UpstreamProxy(http: self.squid, https: nil, noProxy: .none).endpoint(scheme: "https", host: "a.example") == nil)
    }

    @Test(
        "no_proxy matches as curl's does: domains with their subdomains, addresses, networks, * alone",
        arguments: [
            ("example.com", "example.com", true),
            ("example.com", "www.example.com", true),
            (".example.com", "example.com", true),
            ("example.com", "notexample.com", false),
            ("example.com", "example.com.evil", false),
            ("EXAMPLE.com", "Www.Example.COM.", true),
            ("localhost, 127.0.0.1", "127.0.0.1", true),
            ("localhost,127.0.0.1", "localhost", true),
            ("10.0.0.0/8", "10.213.4.5", true),
            ("10.0.0.0/8", "11.0.0.1", false),
            ("10.0.0.0/8", "ten.example", false),
            ("::1", "[::1]", true),
            ("[fd00::]/8", "fd12::5", true),
            ("*", "anything.example", true),
            ("a.example *", "b.example", true),
            ("", "example.com", false),
            ("10.0.0.0/40", "10.0.0.1", false),
        ]
    )
    func noProxy(list: String, host: String, direct: Bool) {
        #expect(NoProxyList(parsing: list).matches(host: host) == direct)
    }

    @Test("only a parent's gateway errors count as its failure")
    func parentFailures() {
        #expect(UpstreamProxy.isParentFailure(status: 502))
        #expect(UpstreamProxy.isParentFailure(status: 503))
        #expect(UpstreamProxy.isParentFailure(status: 504))
        #expect(!UpstreamProxy.isParentFailure(status: 500))
        #expect(!UpstreamProxy.isParentFailure(status: 404))
        #expect(!UpstreamProxy.isParentFailure(status: 200))
    }
}
