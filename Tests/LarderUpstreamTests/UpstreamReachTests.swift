// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderHTTP
    import LarderTestSupport
    import NIOCore
    import NIOPosix
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    /// A request made for a client on another machine never reaches the box's own loopback, however
    /// its host is spelled, and nothing is sent on a connection there (issue 41, finding 2).
    @Suite("Upstream reach: the box's own addresses at connect time")
    struct UpstreamReachConnectTests {
        private let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

        @Test("curl: a name or number resolving to loopback is refused before the request is sent, on a new or a reused connection")
        func curlRefusesBoxLocal() async throws {
            let origin = try await TestOrigin.start()
            defer { Task { try? await origin.stop() } }
            origin.setRoute("/admin", .text("box admin"))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            // The box's own user first: its keep-alive connection stays in curl's pool.
            let own = try await upstream.execute(UpstreamRequest(url: "http://localhost:\(origin.port)/admin"))
            #expect(own.head.status == 200)
            #expect(String(buffer: try await own.body.collect(upTo: 1 << 20)) == "box admin")
            for url in ["http://localhost:\(origin.port)/admin", "http://2130706433:\(origin.port)/admin"] {
                var request = UpstreamRequest(url: url)
                request.reach = UpstreamReach()
                let error = await upstreamError { _ = try await upstream.execute(request) }
                #expect(error?.kind == .forbiddenAddress, "\(url): \(String(describing: error))")
                #expect(error?.message.contains("lan.allowUpstream") == true, "\(String(describing: error))")
            }
            #expect(origin.requestCount("/admin") == 1, "only the box's own user's request reached it")

            var allowed = UpstreamRequest(url: "http://localhost:\(origin.port)/admin")
            allowed.reach = UpstreamReach(allowed: [try #require(UpstreamReach.Allowance(parsing: "127.0.0.1:\(origin.port)"))])
            let answer = try await upstream.execute(allowed)
            #expect(answer.head.status == 200, "what the config lists is reached")
        }

        @Test("tunnels and WebSockets: a connection to loopback is closed before a byte, TLS included, unless listed")
        func connectorRefusesBoxLocal() async throws {
            let origin = try await TestOrigin.start(tls: true)
            defer { Task { try? await origin.stop() } }
            origin.setRoute("/secure", .text("secret"))
            let connector = try UpstreamConnector(trust: UpstreamTrust(additionalCAFile: origin.caCertificatePath))

            let tunnel = await upstreamError {
                _ = try await connector.openTunnel(
                    host: "localhost", port: origin.port, connectTimeout: .seconds(5), reach: UpstreamReach(), eventLoop: self.eventLoop)
            }
            #expect(tunnel?.kind == .forbiddenAddress, "\(String(describing: tunnel))")
            let socket = await upstreamError {
                _ = try await connector.openWebSocket(
                    host: "localhost", port: origin.port, tls: true, connectTimeout: .seconds(5), reach: UpstreamReach(),
                    eventLoop: self.eventLoop)
            }
            #expect(socket?.kind == .forbiddenAddress, "refused before the TLS handshake: \(String(describing: socket))")
            #expect(origin.requests().isEmpty)

            let listed = UpstreamReach(allowed: [try #require(UpstreamReach.Allowance(parsing: "localhost:\(origin.port)"))])
            let channel = try await connector.openTunnel(
                host: "127.0.0.1", port: origin.port, connectTimeout: .seconds(5), reach: listed, eventLoop: self.eventLoop)
            try await channel.channel.close()
        }
    }
#endif
