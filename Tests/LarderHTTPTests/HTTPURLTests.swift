import Testing

@testable import LarderHTTP

struct HTTPURLTests {
    @Test
    func parsesAllComponents() throws {
        let url = try HTTPURL(parsing: "HTTPS://Games.Example:8443/a/%2fb/c.js?v=1&x#frag=1")
        #expect(url.scheme == "https")
        #expect(url.host == "games.example")
        #expect(url.port == 8443)
        #expect(url.path == "/a/%2fb/c.js")
        #expect(url.query == "v=1&x")
        #expect(url.fragment == "frag=1")
        #expect(url.effectivePort == 8443)
        #expect(url.authority == "games.example:8443")
        #expect(url.requestTarget == "/a/%2fb/c.js?v=1&x")
        #expect(url.absoluteString == "https://games.example:8443/a/%2fb/c.js?v=1&x")
    }

    @Test
    func emptyPathAndDefaults() throws {
        let url = try HTTPURL(parsing: "http://example.com")
        #expect(url.path == "")
        #expect(url.query == nil)
        #expect(url.fragment == nil)
        #expect(url.port == nil)
        #expect(url.effectivePort == 80)
        #expect(url.requestTarget == "/")
        #expect(url.absoluteString == "http://example.com/")
        #expect(try HTTPURL(parsing: "https://example.com").effectivePort == 443)
    }

    @Test
    func explicitDefaultPortIsKeptButLeftOutOfAuthority() throws {
        let url = try HTTPURL(parsing: "http://example.com:80/x")
        #expect(url.port == 80)
        #expect(url.authority == "example.com")
        #expect(try HTTPURL(parsing: "http://example.com:443/x").authority == "example.com:443")
    }

    @Test
    func emptyQueryAndFragmentAreKeptApart() throws {
        let url = try HTTPURL(parsing: "http://example.com/p?#")
        #expect(url.query == "")
        #expect(url.fragment == "")
        #expect(url.requestTarget == "/p?")
        let questionInFragment = try HTTPURL(parsing: "http://example.com/p#a?b")
        #expect(questionInFragment.query == nil)
        #expect(questionInFragment.fragment == "a?b")
    }

    @Test
    func ipv6HostIsStoredWithoutBrackets() throws {
        let url = try HTTPURL(parsing: "http://[2001:DB8::1]:8080/x?y")
        #expect(url.host == "2001:db8::1")
        #expect(url.port == 8080)
        #expect(url.authority == "[2001:db8::1]:8080")
        #expect(url.absoluteString == "http://[2001:db8::1]:8080/x?y")
        let loopback = try HTTPURL(parsing: "http://[::1]/")
        #expect(loopback.host == "::1")
        #expect(loopback.authority == "[::1]")
    }

    @Test
    func nonASCIIPathIsPercentEncoded() throws {
        let url = try HTTPURL(parsing: "https://example.com/café?q=ü#é")
        #expect(url.path == "/caf%C3%A9")
        #expect(url.query == "q=%C3%BC")
        #expect(url.fragment == "%C3%A9")
    }

    struct BadURL: Sendable, CustomTestStringConvertible {
        var input: String
        var problem: String
        var testDescription: String { self.input }
    }

    static let badURLs: [BadURL] = [
        BadURL(input: "ftp://example.com/file", problem: "unsupported scheme \"ftp\""),
        BadURL(input: "file:///etc/passwd", problem: "unsupported scheme \"file\""),
        BadURL(input: "example.com/path", problem: "not an absolute URL"),
        BadURL(input: "http:example.com/path", problem: "expected \"//\""),
        BadURL(input: "http:/", problem: "expected \"//\""),
        BadURL(input: "http://", problem: "no host"),
        BadURL(input: "http:///path", problem: "no host"),
        BadURL(input: "https://:8080/path", problem: "no host"),
        BadURL(input: "http://example.com:80a/", problem: "port \"80a\" is not a number"),
        BadURL(input: "http://example.com:-1/", problem: "is not a number"),
        BadURL(input: "http://example.com:70000/", problem: "port 70000 is out of range"),
        BadURL(input: "http://example.com:0/", problem: "port 0 is out of range"),
        BadURL(input: "http://example.com:99999999999999999999999/", problem: "out of range"),
        BadURL(input: "http://exa mple.com/", problem: "space at offset 10"),
        BadURL(input: "http://example.com/a b", problem: "space at offset 20"),
        BadURL(input: "http://example.com/a\tb", problem: "control character 0x09"),
        BadURL(input: "http://example.com/\u{7F}", problem: "control character 0x7F"),
        BadURL(input: "http://user:secret@example.com/", problem: "user information"),
        BadURL(input: "http://[::1/", problem: "no closing \"]\""),
        BadURL(input: "http://[::1]x/", problem: "unexpected characters after the IPv6 address"),
        BadURL(input: "http://[example.com]/", problem: "not a valid IPv6 address"),
        BadURL(input: "http://a:b:c/", problem: "invalid character \":\""),
        BadURL(input: "http://ex<ample.com/", problem: "invalid character \"<\""),
        BadURL(input: "http://bücher.example/", problem: "not ASCII"),
        BadURL(input: "", problem: "empty"),
    ]

    @Test(arguments: Self.badURLs)
    func rejects(_ bad: BadURL) {
        do {
            let url = try HTTPURL(parsing: bad.input)
            Issue.record("parsed \(bad.input.debugDescription) as \(url)")
        } catch {
            #expect(error.input == bad.input)
            #expect(error.reason.contains(bad.problem), "reason: \(error.reason)")
            #expect(error.description == "invalid URL \(bad.input.debugDescription): \(error.reason)")
        }
    }

    @Test
    func errorForAHugeURLQuotesOnlyItsStart() {
        let huge = "https://example.com/" + String(repeating: "a", count: 9000)
        do {
            _ = try HTTPURL(parsing: huge)
            Issue.record("parsed a URL over the limit")
        } catch {
            #expect(error.reason.contains("9020 bytes long; the limit is 8192"))
            #expect(error.input == String(huge.prefix(200)) + "…")
            #expect(error.description.contains("https://example.com/aaaa"))
            #expect(error.description.count < 400)
        }
        #expect(throws: Never.self) {
            try HTTPURL(parsing: "https://example.com/" + String(repeating: "a", count: 8192 - 20))
        }
    }

    @Test
    func acceptsUnusualButValidHosts() throws {
        #expect(try HTTPURL(parsing: "http://my_host.local./x").host == "my_host.local.")
        #expect(try HTTPURL(parsing: "http://192.168.0.1:3000/").authority == "192.168.0.1:3000")
        #expect(try HTTPURL(parsing: "http://[::ffff:192.0.2.1]/").host == "::ffff:192.0.2.1")
    }
}
