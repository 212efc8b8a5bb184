import LarderHTTP
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderUpstream

/// Where a request goes: through a parent proxy by ``UpstreamProxy``'s rule, or never to an
/// address of the box's own when its ``UpstreamRequest/reach`` forbids it.
@Suite("Upstream contract: parent proxy and reach")
struct UpstreamContractProxyTests {
    private static func through(_ parent: TestParentProxy, noProxy: String = "") throws -> UpstreamProxy {
        let endpoint = try ProxyEndpoint(parsing: parent.url)
        return UpstreamProxy(http: endpoint, https: endpoint, noProxy: NoProxyList(parsing: noProxy))
    }

    @Test("http:// goes to the parent in absolute form, with the origin's Host", arguments: UpstreamUnderTest.allCases)
    func httpThroughParent(_ client: UpstreamUnderTest) async throws {
        let parent = try await TestParentProxy.start()
        let origin = try await TestOrigin.start()
        origin.setRoute("/via", .text("via parent"))
        let upstream = try client.make(.init(proxy: try Self.through(parent)))
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/via")))

        #expect(response.head.status == 200)
        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "via parent")
        #expect(parent.requestLines == ["GET \(origin.url("/via"))"])
        #expect(origin.requests("/via").last?.header("host") == "127.0.0.1:\(origin.port)")
        try await origin.stop()
        try await parent.stop()
    }

    @Test("https:// goes through a CONNECT tunnel, the origin verified against the custom CA", arguments: UpstreamUnderTest.allCases)
    func httpsThroughParent(_ client: UpstreamUnderTest) async throws {
        let parent = try await TestParentProxy.start()
        let origin = try await TestOrigin.start(tls: true)
        origin.setRoute("/secure", .text("tunnelled"))
        let upstream = try client.make(
            .init(trust: UpstreamTrust(additionalCAFile: origin.caCertificatePath), proxy: try Self.through(parent)))

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/secure")))

        #expect(response.head.status == 200)
        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "tunnelled")
        #expect(parent.requestLines.count == 1)
        #expect(parent.requestLines.first?.hasPrefix("CONNECT ") == true)
        #expect(parent.requestLines.first?.hasSuffix(":\(origin.port)") == true)
        await upstream.shutdown()
        try await origin.stop()
        try await parent.stop()
    }

    @Test("a host no_proxy matches goes straight to the origin", arguments: UpstreamUnderTest.allCases)
    func noProxyGoesDirect(_ client: UpstreamUnderTest) async throws {
        let parent = try await TestParentProxy.start()
        let origin = try await TestOrigin.start()
        origin.setRoute("/direct", .text("direct"))
        let upstream = try client.make(.init(proxy: try Self.through(parent, noProxy: "127.0.0.1")))
        defer { upstream.close() }

        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/direct")))

        #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "direct")
        #expect(parent.requestLines.isEmpty)
        #expect(origin.requestCount("/direct") == 1)
        try await origin.stop()
        try await parent.stop()
    }

    @Test("a parent's 502 is the origin unreachable: .connectionRefused, not a response", arguments: UpstreamUnderTest.allCases)
    func parentGatewayError(_ client: UpstreamUnderTest) async throws {
        let parent = try await TestParentProxy.start()
        parent.startFailing()
        let origin = try await TestOrigin.start()
        origin.setRoute("/down", .text("never"))
        let upstream = try client.make(.init(proxy: try Self.through(parent)))
        defer { upstream.close() }

        let error = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: origin.url("/down"))) }

        #expect(error?.kind == .connectionRefused)
        #expect(error?.isConnectFailure == true)
        #expect(origin.requestCount("/down") == 0)
        try await origin.stop()
        try await parent.stop()
    }

    @Test(
        "a name resolving to the box's own loopback is refused before anything is sent, unless listed",
        arguments: UpstreamUnderTest.allCases)
    func forbiddenAddress(_ client: UpstreamUnderTest) async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/admin", .text("box admin"))
        let upstream = try client.make()
        defer { upstream.close() }

        var request = UpstreamRequest(url: "http://localhost:\(origin.port)/admin")
        request.reach = UpstreamReach()
        let error = await upstreamError { _ = try await upstream.execute(request) }

        #expect(error?.kind == .forbiddenAddress, "\(String(describing: error))")
        #expect(error?.isConnectFailure == false)
        #expect(error?.message.contains("lan.allowUpstream") == true, "\(String(describing: error))")
        #expect(origin.requestCount("/admin") == 0)
        request.reach = UpstreamReach(allowed: [try #require(UpstreamReach.Allowance(parsing: "127.0.0.1:\(origin.port)"))])
        let allowed = try await upstream.execute(request)
        #expect(String(decoding: try await allowed.body.collectBytes(), as: UTF8.self) == "box admin")
        try await origin.stop()
    }
}
