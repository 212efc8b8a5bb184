import LarderHTTP
import LarderIntrospection
import Testing

@testable import LarderProxy

@Suite("/dev/offline: same-origin check for controls")
struct SameOriginCheckTests {
    let check = SameOriginCheck(ownOrigins: ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"])

    private func request(_ headers: [(String, String)], uri: String = "/dev/offline/actions/offline", host: String = "127.0.0.1:8080")
        -> OwnPageRequest
    {
        let fields = [HeaderField(name: "Host", value: host)] + headers.map { HeaderField(name: $0.0, value: $0.1) }
        return OwnPageRequest(method: "POST", target: uri, path: uri, query: nil, headers: fields, body: [], client: .local)
    }

    /// The check's answer for `request` from a client on this machine or another.
    private func refusal(for request: OwnPageRequest, clientIsLoopback: Bool) -> String? {
        var request = request
        request.client = clientIsLoopback ? .local : .remote(address: "192.168.1.20")
        return self.check.refusal(for: request)
    }

    @Test("the proxy's own origins are accepted, however the loopback is spelled")
    func ownOrigins() {
        #expect(self.refusal(for: self.request([("Origin", "http://127.0.0.1:8080")]), clientIsLoopback: true) == nil)
        #expect(self.refusal(for: self.request([("Origin", "http://LOCALHOST:8080")]), clientIsLoopback: true) == nil)
        #expect(self.refusal(for: self.request([("Origin", "http://[::1]:8080")]), clientIsLoopback: true) == nil)
        #expect(
            self.refusal(
                for: self.request([("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")]), clientIsLoopback: true) == nil)
    }

    @Test("the address the request was sent to counts as own (a LAN address with --allow)")
    func addressedAuthority() {
        let lan = self.request([("Origin", "http://192.168.1.5:8080")], host: "192.168.1.5:8080")
        #expect(self.refusal(for: lan, clientIsLoopback: false) == nil)
        let absolute = self.request(
            [("Origin", "http://192.168.1.5:8080")], uri: "http://192.168.1.5:8080/dev/offline/actions/offline", host: "ignored")
        #expect(self.refusal(for: absolute, clientIsLoopback: false) == nil)
    }

    @Test("for a client on another machine, loopback spellings name that machine: refused, even as the address it sent to")
    func loopbackFromElsewhere() {
        for origin in ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://127.0.0.2:8080"] {
            let fromItsLocalhost = self.request([("Origin", origin)], host: "192.168.1.5:8080")
            #expect(self.refusal(for: fromItsLocalhost, clientIsLoopback: false) != nil, "\(origin)")
            #expect(
                !SameOriginCheck.isOwn(
                    origin, in: ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"], clientIsLoopback: false))
        }
        // Addressed to a loopback name as well (Host is the client's to write).
        let addressedToLoopback = self.request([("Origin", "http://127.0.0.1:8080")], host: "127.0.0.1:8080")
        #expect(self.refusal(for: addressedToLoopback, clientIsLoopback: false) != nil)
        // The same origins from this machine are Larder's.
        #expect(self.refusal(for: addressedToLoopback, clientIsLoopback: true) == nil)
        #expect(SameOriginCheck.isOwn("http://127.0.0.1:8080", in: ["http://127.0.0.1:8080"], clientIsLoopback: true))
        #expect(SameOriginCheck.isOwn("http://192.168.1.5:8080", in: ["http://192.168.1.5:8080"], clientIsLoopback: false))
    }

    @Test("other origins, other ports, https, null and cross-site fetches are refused")
    func foreign() {
        for origin in ["https://evil.example", "http://127.0.0.1:3000", "https://127.0.0.1:8080", "null", "http://evil.example:8080"] {
            #expect(self.refusal(for: self.request([("Origin", origin)]), clientIsLoopback: true) != nil, "\(origin)")
        }
        let crossSite = self.request([("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "cross-site")])
        #expect(self.refusal(for: crossSite, clientIsLoopback: true)?.contains("cross-site") == true)
        let sameSite = self.request([("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-site")])
        #expect(self.refusal(for: sameSite, clientIsLoopback: true) != nil)
    }

    @Test("without Origin, the Referer decides; with neither the request is refused and told what to do")
    func refererAndNeither() {
        #expect(
            self.refusal(for: self.request([("Referer", "http://127.0.0.1:8080/dev/offline/entries?q=x")]), clientIsLoopback: true)
                == nil)
        #expect(self.refusal(for: self.request([("Referer", "https://evil.example/page")]), clientIsLoopback: true) != nil)
        let neither = self.refusal(for: self.request([]), clientIsLoopback: true)
        #expect(neither?.contains("larder purge") == true)
        #expect(neither?.contains("Origin: http://127.0.0.1:8080") == true)
    }
}
